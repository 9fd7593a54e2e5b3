# data rules (see DESIGN.md)
