# report rules (see DESIGN.md)
