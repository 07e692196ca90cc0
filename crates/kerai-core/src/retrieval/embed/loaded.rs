//! The local model's variants loaded in one process (a backend, a fetcher): at most one per
//! precision, shared, so the 90 MB of weights are read once.

use super::{MiniLm, Precision};
use std::sync::{Arc, Mutex};

/// Loaded models, looked up by precision.
pub struct LoadedModels(Mutex<Vec<Arc<MiniLm>>>);

impl LoadedModels {
    pub const fn new() -> LoadedModels {
        LoadedModels(Mutex::new(Vec::new()))
    }

    /// The variant of `precision`, if loaded.
    pub fn get(&self, precision: Precision) -> Option<Arc<MiniLm>> {
        self.lock()
            .iter()
            .find(|m| m.precision() == precision)
            .cloned()
    }

    /// Keep `model`, or the one of its precision another caller kept first.
    pub fn keep(&self, model: MiniLm) -> Arc<MiniLm> {
        let mut all = self.lock();
        if let Some(m) = all.iter().find(|m| m.precision() == model.precision()) {
            return m.clone();
        }
        let m = Arc::new(model);
        all.push(m.clone());
        m
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<MiniLm>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for LoadedModels {
    fn default() -> Self {
        Self::new()
    }
}
