//! Placeholder until this test is written.
