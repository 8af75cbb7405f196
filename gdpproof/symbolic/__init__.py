"""The symbolic layer: every formula of gdpproof, once, as a sympy expression."""
