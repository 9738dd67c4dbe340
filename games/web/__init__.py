"""The web layer: the pages, the rules page, the JSON API and their URLs."""
