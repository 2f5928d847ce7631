//! Durable state in SQL: repositories and migrations for SQLite and PostgreSQL.
