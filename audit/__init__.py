"""The append-only, hash-chained audit log, disputes and their review."""
