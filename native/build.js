// Placeholder until the addon sources land: nothing to build yet.
