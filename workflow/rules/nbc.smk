# nbc rules (see DESIGN.md)
