"""The model folders of hive-mind-engine (``bge-small-en-v1.5/``,
``all-MiniLM-L6-v2/``, ``ms-marco-MiniLM-L-12-v2/``), installed beside this
file; ``hive_mind.resources`` finds them. No code: the package is its files."""
