"""The model of RULES.md: rules ask questions, this layer answers them."""
