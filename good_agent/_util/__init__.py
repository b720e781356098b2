"""Small helpers of the lowest layer; they import nothing else of ``good_agent``."""
