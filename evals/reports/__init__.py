"""Reports of eval results: summaries, tables in the docs, plots, pages, goals and statistics."""
