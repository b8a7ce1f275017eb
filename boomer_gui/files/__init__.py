"""Files: rule exports, model files, sessions and background data loading (no Qt but the loader)."""
