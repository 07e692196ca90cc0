//! Weights of the block model (see `block_model.rs`), written by
//! `cargo run --release -p kerai-core --example train_block_model -- --out crates/kerai-core/src/convert/html/block_weights.rs`.

/// One weight per feature of `block_model::features`, the first the bias (`block_model`
/// checks the length against its `FEATURES`).
pub(crate) const WEIGHTS: [f32; 46] = [
    -0.08558, 0.00000, 0.54850, -0.05404, 0.08586, 0.13429, -0.64805, -0.34597, 0.46226, 0.48857,
    1.21981, -0.37031, 0.08664, 0.77308, -0.65000, -0.31408, 0.14219, 1.48716, 0.73722, -0.47012,
    -0.22469, -0.58379, -1.33231, 0.00000, -0.23116, -0.71915, 0.85453, 0.59308, 0.72791, 0.25942,
    0.03775, -0.13775, 0.76170, 0.08664, 0.00000, 0.12906, 0.13801, 0.50975, 0.47762, 0.42606,
    0.25182, -0.40838, 0.02442, 1.23727, -1.75317, -1.66885,
];
