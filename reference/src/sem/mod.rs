//! STUB: semantics.
