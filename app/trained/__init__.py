"""Trained artefacts: model files and their runner (gguf_file, runner), the models registry
(models), the shipped data read from them (heads_data) and learned position tables (learned_tables)."""
