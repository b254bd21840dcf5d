"""Where models and machines come from: presets, config.json, the custom model, GPU data, the catalog."""
