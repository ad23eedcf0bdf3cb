//! The root package exists to own the integration tests in `tests/it`; it has no code.
