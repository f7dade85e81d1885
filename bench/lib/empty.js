// An empty module: the baseline of the cold-import figures (module loading itself).
export {};
