# xpg rules (see DESIGN.md)
