"""The numeric layer: symbolic expressions turned into certified and fast numbers."""
