"""One module per rule; the class docstring is the rule's documentation."""
