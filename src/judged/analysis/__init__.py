"""Analyses built on evaluation: exact bounds over unjudged grades, tie and judgment sensitivity, explain."""
