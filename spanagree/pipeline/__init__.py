"""The comparison pipeline: documents read, compared, accumulated."""
