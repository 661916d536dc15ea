# examples/: the demo (`make demo`) and the custom-op example library.
