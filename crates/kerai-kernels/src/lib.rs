//! The numeric kernels of kerai's local embedding model (`kerai_core::retrieval::embed`):
//! linear layers in 8-bit integers ([`QLinear`]) and the element-wise math around them
//! ([`vecmath`]). Pure Rust with no dependencies.
//!
//! A crate of its own so that it is optimised in debug builds too (`[profile.dev.package]`
//! in the workspace's Cargo.toml): unoptimised, these loops are tens of times slower, and
//! the tests and the demo embed with debug builds.

pub mod qlinear;
pub mod vecmath;

pub use qlinear::{Kernel, QLinear, QuantRows};
