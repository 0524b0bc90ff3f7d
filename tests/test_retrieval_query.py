from app.retrieval.query import expand_query, is_german


def test_german_is_recognised_english_is_not():
    assert is_german("warum ist die heuristik zulässig?")
    assert is_german("welche infos hängen an einem knoten im suchbaum?")
    assert not is_german("why is the heuristic admissible?")
    assert not is_german("my code: for u in graph: if u not in visited")


def test_german_course_words_get_their_english_equivalents():
    lex = (("suchbaum", "search tree"), ("knoten", "node"), ("baum", "tree"), ("zulässig", "admissible"))
    assert expand_query("was speichert ein knoten im suchbaum?", lex) == (
        "was speichert ein knoten im suchbaum? (search tree node tree)"
    )
    assert expand_query("ist die heuristik zulässig?", lex) == "ist die heuristik zulässig? (admissible)"


def test_english_and_unknown_words_pass_unchanged():
    lex = (("knoten", "node"),)
    assert expand_query("what does a node store?", lex) == "what does a node store?"
    assert expand_query("wie geht das hier?", lex) == "wie geht das hier?"


def test_the_shipped_lexicon_loads():
    assert "admissible" in expand_query("ist die heuristik zulässig?")
