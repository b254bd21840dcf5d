"""Questions asked of the engine: estimate, fit, the reverse questions, suggestions, capacity."""
