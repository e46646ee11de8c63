"""Stand-in for transformers: verl's reward managers name AutoTokenizer only in annotations; the test hands a tokenizer."""


class AutoTokenizer:
    pass
