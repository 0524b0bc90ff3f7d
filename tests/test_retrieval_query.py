import pytest

from app.retrieval.query import DEFAULT_LEXICON, expand_query, fold, is_german, load_lexicon, matches


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


# --- the shipped lexicon (issue #3): golden expansions of questions as German students write them


@pytest.mark.parametrize(
    ("question", "expanded"),
    [
        (
            "wie findet meine schach-engine den besten zug, wenn der bauer zur dame wird?",
            "(chess pawn queen move)",
        ),
        (
            "warum findet A* den billigsten weg, wenn die heuristik zulaessig ist?",
            "(heuristic cheapest admissible cheap path route)",
        ),
        (
            "ich versuche zu verstehen, warum die tiefensuche im schlimmsten fall exponentiell ist",
            "(worst case exponential depth-first search dfs search depth)",
        ),
        (
            "mein programm stürzt ab mit einer endlosschleife, was mache ich falsch?",
            "(infinite loop crashes program loop wrong incorrect)",
        ),
        (
            "was ist der unterschied zwischen einem stapel und einer warteschlange?",
            "(queue difference stack)",
        ),
        (
            "gibt es ausserdem einen schnelleren algorithmus fuer kuerzeste wege?",
            "(algorithm faster shortest fast quick paths routes)",
        ),
        (
            "Warum wird bei Alpha-Beta ein Teilbaum abgeschnitten, wenn die Zugreihenfolge gut ist?",
            "(move ordering pruned cut off subtree tree)",
        ),
        (
            "wie viel speicher braucht die breitensuche bei verzweigungsfaktor b?",
            "(branching factor breadth-first search bfs branching branch memory space search)",
        ),
        (
            "was ist ein beispiel für eine zulässige aber nicht konsistente heuristik?",
            "(consistent heuristic admissible example)",
        ),
    ],
)
def test_realistic_german_questions_get_golden_expansions(question, expanded):
    assert expand_query(question) == f"{question} {expanded}"


@pytest.mark.parametrize("spelling", ["zulässig", "zulaessig", "zulassig", "ZULÄSSIG"])
def test_umlauts_match_whether_written_as_umlaut_digraph_or_plain_vowel(spelling):
    assert expand_query(f"warum ist die heuristik {spelling}?").endswith("(heuristic admissible)")


def test_fold_maps_umlauts_digraphs_and_sharp_s_alike():
    assert fold("Zulässigkeit") == fold("zulaessigkeit") == fold("zulassigkeit") == "zulassigkeit"
    assert fold("Größe") == fold("groesse") == "grosse"
    assert fold("Züge") == fold("zuege") == "zuge"


@pytest.mark.parametrize(
    ("stem", "word", "expected"),
    [
        ("knoten", "knotens", True),  # 5+ letters: prefix
        ("weg", "weg", True),  # short stems: the whole word only
        ("weg", "wegen", False),
        ("rand", "randomisiert", False),
        ("baum", "suchbaum", True),  # end of a compound with a real head
        ("suche", "versuche", False),  # ver- derives, it does not compound
        ("spiel", "beispiel", False),
        ("suchen", "untersuchen", False),  # particle head
        ("endlich", "letztendlich", False),
        ("bauer", "bauern", True),  # letters counted before folding drops the e of "ue"
        ("zulässig", "zulaessige", True),
    ],
)
def test_matching_rules(stem, word, expected):
    assert matches(stem, fold(word)) is expected


def test_short_words_inside_everyday_words_do_not_fire():
    lex = load_lexicon()
    assert expand_query("wegen der neuen regel ist das randomisiert", lex) == (
        "wegen der neuen regel ist das randomisiert (rule)"
    )
    # "gibt aus" hides in "gibt außerdem"
    assert "print" not in expand_query("gibt es außerdem eine andere lösung?", lex)
    assert "prints outputs" in expand_query("warum gibt mein code nichts aus, und was gibt aus der funktion?", lex)


def test_a_stem_inside_a_longer_lexicon_word_that_is_no_compound_of_it_does_not_fire():
    lex = (("suchbaum", "search tree"), ("schlange", "queue"), ("lange", "long"), ("baum", "tree"))
    assert expand_query("warum ist die warteschlange leer?", lex) == "warum ist die warteschlange leer? (queue)"
    assert expand_query("wie lange dauert die suche im suchbaum?", lex) == (
        "wie lange dauert die suche im suchbaum? (search tree long tree)"
    )


def test_phrases_match_word_by_word_with_inflection():
    assert "worst case" in expand_query("was passiert im schlimmsten fall?")
    assert "binary search" in expand_query("wie schnell ist die binäre suche?")
    assert "dynamic programming" in expand_query("wann nutzt man dynamische programmierung?")


# Closed-class words and the commonest verbs and adverbs of German questions: none may expand.
COMMON_GERMAN = """
der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner
ich du er sie es wir ihr mich dich sich uns euch mir dir ihm ihn ihnen mein meine meinen meinem meiner dein deine
sein seine ihre unser euer dieser diese dieses diesen diesem jener jede jeder jedes jeden alle alles allem allen
man jemand niemand etwas nichts viel viele vielen wenig wenige mehr weniger einige manche beide beiden andere anderen
und oder aber doch sondern denn weil dass ob wenn als wie falls obwohl damit sodass während bevor nachdem seit bis
solange sobald sowie also deshalb deswegen daher darum trotzdem jedoch allerdings außerdem ausserdem ebenfalls
in im an am auf aus bei beim mit nach von vom vor zu zum zur über ueber unter durch für fuer gegen ohne um zwischen
innerhalb außerhalb wegen statt anstatt laut je desto umso
ist sind war waren bin bist seid sein wird werden wurde wurden worden wäre waere hat haben habe hab hast hatte hätte
kann kannst können konnte könnte muss musst müssen sollte sollen soll darf dürfen will wollen würde möchte mag
macht machen mache gemacht geht gehen gibt gab geben gegeben kommt kommen steht stehen liegt sieht sehen zeigt zeigen
heißt heisst sagt sagen meint meinen denke denkst glaube verstehe verstehen weiß weiss wissen brauche braucht
nimmt nehmen benutzt benutzen verwendet verwenden nutzt findet finden hilft lässt passiert bekomme bekommt
was wer wen wem wessen wo wann warum wieso weshalb welche welcher welches welchen woher wohin womit wofür wodurch
nicht nur noch schon auch sehr so ja nein nie immer oft manchmal wieder jetzt dann da dort hier heute gerade eben
halt mal eigentlich überhaupt wirklich genau ganz gleich einfach bitte danke vielleicht eventuell natürlich klar
sicher bereits erst zuerst dabei dafür davon darauf damit dazu hierbei insbesondere beziehungsweise bzw usw etwa
ungefähr fast sogar nämlich quasi irgendwie irgendwo inwieweit folgende folgenden gut neu neue neuen andere anders
""".split()


def test_no_common_german_word_expands_on_its_own():
    lex = load_lexicon()
    fired = {w: expand_query(f"warum ist das {w}", lex) for w in COMMON_GERMAN}
    assert {w: q for w, q in fired.items() if q != f"warum ist das {w}"} == {}


def test_every_lexicon_line_parses():
    lines = [ln for ln in DEFAULT_LEXICON.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    terms = []
    for ln in lines:
        de, en = ln.split("\t")  # exactly one tab
        assert de == de.strip().lower() and de, ln
        assert en == en.strip() and en, ln
        assert all(fold(w).isalpha() for w in de.split()), ln
        terms.append(de)
    assert len(terms) == len(set(terms)), "a German term is listed twice"
    assert 400 <= len(terms) <= 600
    assert len(load_lexicon()) == len(terms)


def test_no_single_word_stem_is_a_common_german_word():
    common = {fold(w) for w in COMMON_GERMAN}
    assert [de for de, _ in load_lexicon() if " " not in de and fold(de) in common] == []
