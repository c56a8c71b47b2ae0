"""The analysis: rules ask questions, this layer answers them (docs/evidence.md)."""
