"""The model language: YAML loading, expressions, type checking and the compiled model."""
