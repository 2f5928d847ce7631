//! The Telepathy node: HTTP API, WebSocket, configuration and static files.
