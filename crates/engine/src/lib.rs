//! Cross-node coordination: the Engine trait with its Redis and in-memory implementations.
