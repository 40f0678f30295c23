//! Test helpers shared by the modules of `tests/outbound.rs`.

pub mod server;

pub use server::{Reply, TestServer};
