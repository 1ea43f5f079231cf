"""trec_eval's measures over the joins: the main walk, gain maps and rbp, levels of num_rel, judged-only
rankings, relevance strings, preferences and judgment groups."""
