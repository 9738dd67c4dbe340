"""The match clocks: the sweeps over due deadlines on top (`sweeps`), the time helpers every
layer uses below (`timing`). Kept empty so that importing `timing` never loads the sweeps."""
