# ffa rules (see DESIGN.md)
