//! What can go wrong when embedding.

use crate::ResourceError;
use std::fmt;
use std::path::{Path, PathBuf};

/// An embedding failure, worded for the person who can fix it.
#[derive(Debug, Clone, PartialEq)]
pub enum EmbedError {
    /// A model file is not where it should be.
    MissingModel { path: PathBuf },
    /// A model file is there but unreadable or malformed.
    Corrupt(ResourceError),
    /// The model failed while running (out of memory, shape mismatch).
    Model(String),
}

impl EmbedError {
    pub(super) fn missing(path: &Path) -> Self {
        EmbedError::MissingModel {
            path: path.to_path_buf(),
        }
    }

    pub(super) fn corrupt(path: &Path, detail: impl fmt::Display) -> Self {
        EmbedError::Corrupt(ResourceError::corrupt(
            path.display().to_string(),
            detail.to_string(),
        ))
    }
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmbedError::MissingModel { path } => write!(
                f,
                "embedding model file not found: {} (run `make setup` or scripts/install-model.sh, or set \
                 KERAI_MODEL_DIR to a directory holding model.safetensors, tokenizer.json and config.json)",
                path.display()
            ),
            EmbedError::Corrupt(e) => write!(
                f,
                "{e}; reinstall the model with `make setup` or scripts/install-model.sh"
            ),
            EmbedError::Model(detail) => write!(f, "embedding failed: {detail}"),
        }
    }
}

impl std::error::Error for EmbedError {}
