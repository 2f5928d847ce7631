//! Outside services behind traits.
