"""The vocabulary of the rule intent classifier (KITE §3.4.1): cue words, detectors and one pattern per rule.

`app.tutor.intents` owns the decisions (which rule adds how much weight to which intent, precedence, fallback);
this module only says what each piece of evidence looks like in English and German. Patterns run on the
normalised prose of a question (lower-case, umlauts transliterated, cue typos corrected, pasted code lines
removed, see `intents.prepare`); `CODE_MARKERS`, `TRACE` and `CODE_LINE` run on the raw text.
"""

from __future__ import annotations

import re

# Cue words long enough to correct typos safely (see module docstring, step 1).
CUE_WORDS: tuple[str, ...] = (
    "correct", "correctly", "korrekt", "richtig", "stimmt", "pruefen", "ueberpruefen", "kontrollier",
    "confirm", "double", "solution", "loesung", "answer", "ergebnis",
    "infinite", "forever", "output", "ausgabe", "crashes", "crashing", "terminate", "terminates", "endless",
    "endlos", "endlosschleife", "funktioniert", "fehlermeldung", "exception", "traceback", "instead",
    "difference", "unterschied", "compare", "vergleich", "intuition", "intuitively", "definition", "explain",
    "erklaeren", "understand", "verstehe", "situations", "advantage", "vorteil", "through", "schritt",
    "simulate", "simuliere", "iteration", "happens", "complexity", "laufzeit", "because",
)


# Short cue words are too close to other words for fuzzy correction; their frequent misspellings are listed.
SHORT_TYPOS: dict[str, str] = {
    "wat": "what", "wht": "what", "whta": "what", "waht": "what", "rite": "right", "rigth": "right",
    "dosnt": "doesnt", "wich": "which", "whihc": "which", "hwo": "how", "warun": "warum", "wiso": "wieso",
}


# --- pasted material (raw text) --------------------------------------------------------------------------------

CODE_MARKERS = re.compile(
    r"```|^\s*def \w+\s*\(|\breturn\b|^\s*(for|while|if|elif)\b.*:\s*$|\bfor \w+(, ?\w+)? in\b.*:|"
    r"^\s*\w+(\[[^\]]*\])?\s*[-+*/]?=\s*\S|\w+\(.*\)\s*:|\bheappush\(|\bappend\(|;\s*\w|^\s{2,}\S|"
    r"\bselect\b.+\bfrom\b",
    re.MULTILINE | re.IGNORECASE,
)
TRACE = re.compile(r"(?<![\w-])[A-Z](?![\w(])(?:[ \t]*(?:->|-|–|,)?[ \t]*[A-Z](?![\w(])){2,}")


CODE_LINE = re.compile(
    r"^\s*(```|def \w+\s*\(|return\b|(for|while|if|elif|else|try|except)\b.*:\s*$|"
    r"\w+(\[[^\]]*\])?(, ?\w+)*\s*[-+*/]?=\s*\S|[\w.]+\(.*\)\s*$)|^\s{2,}\S",
)


# --- shared fragments ------------------------------------------------------------------------------------------

# A why- or which/what-question about an algorithm in general ("why does A* never expand a node twice", "which SQL
# keyword removes duplicate rows") describes behaviour without reporting the learner's own run: no my/I anywhere.
GENERAL_QUESTION = (
    r"^(?!.*\b(my|mein\w*|i|ich|bei mir|implementation|implementierung|code|program|programm|script|bot|solver|"
    r"version)\b)(.*\b(why|how come|warum|wieso|weshalb)\b|(\w+[,:]? ){0,3}(which|what|who|welche\w*|wer)\b)"
)


CHECK = (
    r"\b(is|does|was) (this|that|it|my \w+( \w+)?) (\w+ )?(right|correct|ok|okay|valid|admissible|sound)\b|"
    r"\b(am i (right|correct|wrong|on the right track|missing)|did i (get|do) (this|that|it) (right|correctly))\b|"
    r"\bany (issues|problems|mistakes|concerns) (with|in) (this|it|that|my)\b|\banything (to add|else)\s*\?|"
    r"\bkommt (das|es) hin\b|\bwhich (one )?of us\b|\bwer von uns\b|\bkann (das|es) (hinkommen|sein|stimmen)\b|"
    r"\bdid i do it\b|\bam i right\b|\b(can|could|would) (you|u|someone|anyone) (please |pls )?(check|confirm|verify|"
    r"double check|look at|look over|look through|review|go over|proofread|grade|mark)\b|\btell me (if|whether) (i|"
    r"it|this|my|that)\b|\b(give|get) (me )?(some |any )?feedback\b|\bfeedback (on|for|zu)\b|(^|[,.;:]\s*|\band |"
    r"\bor )would [^?]{1,40} be (accepted|correct|right|ok|okay|valid|enough|fine)\b|\bdouble[- ]?check\b|"
    r"\bcheck (my|this|if|whether)\b|\bconfirm\b|\blooks? (ok|okay|right|good|correct)\b|\bstimmt (das|so|meine?|es|"
    r"die|der|den)\b|\b(so )?in ordnung\s*\?|\bist (das|dies|mein\w*) [^?]{0,40}\bin ordnung\b|"
    r"\bis my [\w*-]+( [\w*-]+)? (ok|okay|fine|alright)\b|\bist (das|dies|meine?) (\S+ )?(so )?(richtig|korrekt|"
    r"ok)\b|\bgeht das so\b|\bso ok\b|\brichtig so\b|\bso (richtig|korrekt)\b|\bpasst (das|die|der|mein|"
    r"meine?) ?\w*\b|\b(ueber)?pruefen\b|\bkontrollier|\bliege ich\b.*\brichtig\b|\bhab(e)? ich (das|es) richtig\b|"
    r"\bdrueber (schauen|gucken)\b|\bchecken\b|\bis (that|this|it) (so )?correct\b|\bcorrect or not\b|\bis (this|"
    r"that) (how|the (right|correct|proper) way)\b|\bwho is right\b|\bis it true that\b|\bstimmt es,? dass\b|"
    r"\bist es richtig,? dass\b|\bwer hat recht\b|\b(or|oder) (am i|did i|liege ich|irre ich|hab(e)? ich)\b|\b(do|"
    r"did) i (have|understand|get) (this|that|it) (right|correctly)\b|\bcan (i|we) say\b|\bkann (man|"
    r"ich) (das )?so sagen\b|\b(does|do) (this|that|it) (hold|check out|make sense)\b|"
    # a check asked for in a few words, or of one part of the learner's own work
    r"\bsanity[- ]check\b|\bquick check\b|\bkurzer check\b|\b(pls|please|plz|bitte|kurz|mal) (check|verify|confirm|"
    r"pruefen|kontrollieren|checken)\b|\bcheck\s*[?.!]*$|\bist meine? [^?]{0,60}\b(richtig|korrekt)\b|\bis (step|"
    r"line|row|part|entry|pass|iteration|round) \w+ (right|correct|ok)\b|\b(does|do|did) (this|that|it|my|"
    r"the) ([\w*-]+ ){0,2}(satisfy|meet|fulfil\w*|violate|respect)\b|\b(is )?anything (wrong|missing|off)( here|"
    r" with (it|this|that))?\s*[?.!]*\s*$|\bdid i (break|miss|forget|mess up|violate|skip|overlook)\b|\b(is|"
    r"are) (the |my |this )?[\w*-]+( [\w*-]+)? (in|at) the (right|correct) (spot|place|position|order|index)\b|"
    r"\bor is (this|that|it) (fine|ok|okay|correct|right|allowed)\b|\b(is|was) (that|this) what (you|u) (get|got|"
    r"have)\b|\bdo (you|u) get the same\b|\banything (i'?m|im|i am|i) (missing|forgetting|overlooking)\b|"
    r"\bdid i miss anything\b|\bhab(e)? ich (was|etwas) (vergessen|uebersehen)\b|\bis it (fine|ok|okay|alright|"
    r"allowed|legit|valid) (to|like this|if)\b|\bwho'?s right\b|\bcorrect me if\b|\b(am i|i'?m|im) (right|wrong)\b|"
    r"\birre ich mich\b|\bkorrigier\w* mich\b|"
    # an inference of the learner's to confirm: "does that mean ...?", "heisst das dann ...?"
    r"(?<!what )(?<!why )\b(does|would) (that|this) mean,? [^?]{3,}\?|(?<!was )\b(heisst|bedeutet) (das|dies)( dann|"
    r" also)?,? [^?]{3,}\?"
)
OWN_ANSWER = (
    r"\b(my|final) (\w+ )?(answer|solution|result|proof|reasoning|trace|passes|steps|order|table|values|working|"
    r"attempt|cheat sheet|derivation|version|draft)\b|\b(ergebnis|loesung|antwort) von mir\b|^answer\s*:|"
    r"\b(?<!that )(?<!if )(?<!when )i (got|get(?! (that|why|how|it|the idea|the point|what))|said|wrote|think|"
    r"believe|guess|put|would say|d say)\b|\bich (wuerde|wuerd) sagen\b|\bpretty sure\b|\bi (computed|calculated|"
    r"counted|found|came up with|end(ed)? up with|checked|verified|showed|proved|argued|derived|concluded)\b|"
    r"\bich (komme|kam) auf\b|\b(bekomme|kriege|erhalte) ich\b|\bich (bekomme|kriege|erhalte)\b|^(got|get|have|found|"
    r"computed|calculated|hab|habe)\b|\bhere'?s my\b|\bhere is my\b|\bhere'?s what i\b|\bwhat i (wrote|did|have)\b|"
    r"\bthat'?s what i (have|got|wrote|did|get)\b|\bhier (ist|sind) mein\w*\b|\bi have (this|the following) (for|"
    r"as)\b|\bhab(e)?\b[^.?!]{0,40}\b(gezaehlt|berechnet|ausgerechnet|bekommen|verglichen|geprueft)\b|\bi (pruned|"
    r"expanded|popped|picked|chose|assigned|colou?red|placed|filled)\b|\bi (have|had|now have) (\[|\d|[a-z]\w* ?=)|"
    r"\bbei mir kommt\b|\bich hab(e)? \w+( \w+)? (gezaehlt|berechnet|ausgerechnet|bekommen)\b|\bmy understanding\b|"
    r"\bich (glaube|denke)\b|\bhab(e)?\b[^.?!]*\braus\b|\bhab(e)? (\w+ )?(verglichen|geprueft|nachgerechnet|"
    r"ueberprueft|gezaehlt|berechnet|ausgerechnet)\b|\bmeine? (loesung|antwort|ergebnis|rechnung)\b|^claim\b|"
    r"\bclaim:|\bbehauptung\b|\bals ergebnis\b|\b(so|also) .*\b(basically|just the same|the same as|dasselbe|"
    r"im grunde)\b|\bhab(e)? (fuer|bei)\b"
)
SYMPTOM = (
    r"\b\w*(error|exception)\b|\btraceback\b|\bsegmentation fault\b|\bcore dumped\b|\bfehler(meldung)?\b|\bwrong\b|"
    r"\bfalsch\w*\b|\binstead of\b|\bstatt\b|\bexpected\b.*\bgot\b|\bnever\b|\bnie\b|\bcrash\w*|\bhangs?\b|"
    r"\bforever\b|\binfinite(ly| loop| recursion)\b|\bendlos\w*|\bdoesn'?t work|\bfunktioniert nicht\b|\bbug\b|"
    r"\bkaputt\b"
)


# What a program or an algorithm does when it runs (EN 3rd person, DE 3rd person): a learner reports these about
# their own implementation, which they only do when it misbehaves or when they ask for a check.
RUN_VERB_EN = (
    r"(returns?|gives?|outputs?|prints?|picks?|chooses|makes|expands?|explores?|visits?|prunes?|finds?|reaches|"
    r"generates|produces|shows?|thinks|takes|stops|gives up|keeps?|loses|skips|ignores|says|loops|runs|searches|"
    r"plays|comes out|empties|clears|deletes|removes|assigns|fills|copies|counts|crashes|hangs|freezes|breaks|dies|"
    r"fails|puts|adds|pushes|pops|marks|leaves|swaps|sorts|misses|drops|repeats|revisits|overwrites|causes|leads to|"
    r"results in|reconstructs|computes|calculates|evaluates|ends up|never|always|only|barely|hardly|just)"
)
RUN_VERB_DE = (
    r"(gibt|liefert|findet|waehlt|expandiert|besucht|haengt|laeuft|schneidet|macht|zeigt|erzeugt|bricht|sucht|nimmt|"
    r"markiert|berechnet|bewertet|rechnet|spuckt|landet|bleibt|ignoriert|ueberspringt|verliert|immer|nie|sorgt|"
    r"fuehrt|verursacht|vergisst|wiederholt|loescht|entfernt|ueberschreibt|opfert|springt|stoppt|terminiert|"
    r"abstuerzt|absturzt|aufhaengt|abbricht|nur|kaum)"
)
# Things of the learner's that are claims to check, not programs that run.
OWN_CLAIM_NOUN = (
    r"(answer|solution|result|proof|reasoning|trace|understanding|guess|calculation|notes?|lecture|slides?|book|"
    r"textbook|exercise|homework|assignment|friend|teacher|tutor|professor|prof|lecturer|instructor|ta|classmate)"
)
# Signs that an output is bad even though no error word is used.
ANOMALY = (
    r"\b(suboptimal|non-?optimal|worst|weird|strange|odd|wrong|garbage|nonsense|random|komisch\w*|seltsam\w*|"
    r"falsch\w*|schlechteste\w*)\b|\b(way|far|much|viel|deutlich) (more|mehr|too|zu)\b|\btoo (many|much|few|deep|"
    r"long|slow|often)\b|\b(twice|doppelt|mehrfach|hundertmal|multiple times|several times|every row|"
    r"more than once)\b|\b(nothing|anything|nichts|niemals)\b|\bthe same (\w+ )?(again|twice|over)\b|\bsame (cost|"
    r"value|result|number|path) as\b|\ba different (\w+ )?(value|result|cost|path|answer) than\b|\beinen? anderen?\b|"
    r"\b(unsorted|unchanged|backwards|reversed|in reverse|empty|missing|duplicated?|unsortiert|leer|rueckwaerts|"
    r"verkehrt)\b|\b(much|way|far|viel|deutlich) (longer|shorter|worse|slower|bigger|larger|deeper|laenger|"
    r"schlechter|langsamer|groesser|tiefer)\b|\b(every|each) time\b|\bjedes mal\b|\btoo (high|low|big|small|large|"
    r"short|early|late)\b|\b(longer|shorter|worse|more|higher|lower|bigger|larger|deeper|fewer|less|"
    r"slower) than (optimal|necessary|needed|expected|it should|the (optimal|correct|best|right))\b|"
    r"\ba diff(erent)? (\w+ )?(value|result|cost|path|answer|order) than\b|\b(nix|no longer|anymore|any more|"
    r"nicht mehr|constantly|all the time|staendig|dauernd|immer wieder|randomly|at random|zufaellig|half[- ]sorted|"
    r"partially|partly|halb)\b|\bkeine?n? \w+ mehr\b"
)


# --- one pattern per rule (names as in intents.RULES) ------------------------------------------------------------

WHAT_IS = (
    r"\b(what|wat|wht|whta)( is|'s|s| are| does \w+( \w+)? (mean|stand for))\b|\bwas (ist|sind|bedeutet|heisst|"
    r"genau ist)\b(?! (das|es|dies|sich) (fuer|an)\b)"
)

DEFINE = (
    r"\b(define|definition|defintion|meaning of|stands? for|was versteht man unter|wofuer steht|begriff|explain|"
    r"erklaer\w*|tell me about|defined|denoted|definiert|definitions?)\b|\bwhat'?s meant by\b|\bwhat is meant by\b|"
    r"\bgemeint\b"
)

FACT_WHICH = (
    r"^(\w+[,:]? ){0,3}(which|who|how many|how much|welche[rsnm]?|wie nennt man|wie heisst|wie ?viele?)\b"
)

FACT_PROPERTY = (
    r"^is \w+( \w+)? (stable|complete|optimal|in[- ]place|admissible)\b|\bdefault\b|\b(time|space) complexity\b|"
    r"\bruntime\b|\blaufzeit\b|\bbig o\b|\bworst case\b"
)

WHY = (
    r"\b(why|y|whyy|how come|warum|wieso|weshalb|weswegen|wozu)\b|\bhow so\b|\bwie das\s*\?|"
    # the rhetorical why: "how is that not a waste of time", "how can that be optimal"
    r"\bhow (is|can|could) (that|this|it) (not|even|possibly|be)\b|\bwie kann (das|es) sein\b"
)

HOW_IT_WORKS = (
    r"\bhow (does|do|is|are|can) .*\b(work|works|achieve|relate|related|guarantee|handle|affect|help)\b|"
    r"\bunder the hood\b|\bwhat makes\b|\bwie (funktioniert|funktionieren|haengen|haengt)\b|\bwie kommt man\b|"
    r"\bhow (do|would|can) (i|you|we|one) (come up|think|choose|decide|know)\b|"
    # how to go about something in general: the right way, how should one
    r"\bwhat'?s the (right|best|proper|correct|usual|standard) way to\b|\bhow (should|would) (i|we|one|you)\b|"
    r"\bwie (sollte|muss|soll) (man|ich)\b"
)

COMPARE = (
    r"\bdifference\b|\bhow (is|are|does|do) .*\bdiffer\w*|\bcompare\w*|\bcomparison\b|\bvs\.?\b|\bversus\b|"
    r"\bpros and cons\b|\bbetter (than|for)\b|\bor a \w+ better\b|\bunterschied\w*|\bvergleich\w*|\bvorteil\w*|"
    r"\b(dis)?advantages?\b|\bdrawbacks?\b|\btrade-?offs?\b|\brather than\b|\bas opposed to\b|\bnachteil\w*|"
    r"\bbesser als\b|\bstatt nur\b|\binstead of just\b|\b(is it|would it be|isn'?t it) (better|smarter|faster|"
    r"cheaper|wiser)\b|\bshould (i|we|one) (use|pick|choose|take) [\w*-]+ or\b|\bist es (besser|sinnvoller|"
    r"schneller)\b|"
    # a trade-off asked in plain words; one notion stronger / more general than another
    r"\b(stronger|weaker|stricter|more general|more specific|allgemeiner|strenger|staerker|schwaecher) (than|als)\b|"
    r"\bwhat do (i|we|you|one) (gain|win|lose|pay|give up|sacrifice)\b|\b(down|up)sides?\b|"
    # which of two options is faster / better / more important; "bfs or dfs for a huge maze?"
    r"^(\w+[,:]? ){0,2}[\w*-]+ (or|oder) [\w*-]+( \w+)? (for|to|when|if|on|in|bei|fuer|wenn)\b|\bwhich (one |of (the|"
    r"these|them|both) )?(is|are|would be|gets|runs) (\w+ )?(faster|slower|better|worse|more|less|cheaper|smaller|"
    r"bigger|preferable|efficient)\b|\b(was|welche\w*) (ist|sind) (\w+ )?(schneller|langsamer|besser|schlechter|"
    r"wichtiger|effizienter|sparsamer)\b|\bworth it\b|\bwhat'?s the (catch|price)\b|\bwas (gewinne|verliere|bezahle|"
    r"zahle) (ich|man)\b|\blohnt (es|sich)\b"
)

WHEN_TO_USE = (
    r"\bwhen (should|would|do|to|can) (i |you |we |one )?use\b|\b(what|which) situations?\b|\bwann (nimmt|benutzt|"
    r"verwendet|sollte|braucht|reicht)\b|\bwhen would\b|"
    # choosing between methods under a condition: when should I pick..., which X should I use if...
    r"\bwhen (should|to|is it (better|worth|a good idea)|does it make sense)\b|\bwhen (do|can) (i|you|we|one) (use|"
    r"pick|choose|prefer|take|go with)\b|\b(which|what) [\w*-]+( [\w*-]+)? (should|would) (i|we|you|one) (use|pick|"
    r"choose|prefer|take|go with)\b|\bwann (lohnt|eignet|nimmt|nutzt|waehlt)\b|\bwann (ist|sind|"
    r"macht)\b[^?]*\b(sinnvoll|besser|geeignet|angebracht|nuetzlich|sinn)\b|"
    # the conditions under which a method fails or has a property
    r"\b(when|wann) (does|do|is|are|can|will|would|ist|sind|kann|wird)\b[^?]{1,40}\b(fail\w*|break\w*|optimal|"
    r"complete|terminate|guarantee\w*|better|worse|useful|necessary|bad|good|idea|preferable|appropriate|"
    r"vollstaendig|terminiert|scheitert|versagt)\b|\bwelche\w* [\w*-]+( [\w*-]+)? (sollte|soll|sollten) (ich|man|"
    r"wir)\b"
)

INTUITION = (
    r"\bintuiti\w*|\bthe point (of|in|behind)\b|\bwhat'?s the point\b|\b(mir ist|ist mir) (noch )?(nicht|"
    r"unklar)( ganz)?( klar)?\b|\bnot clear (to me )?(why|how)\b|\bunclear (to me )?(why|how)\b|\bi (don'?t|do not|"
    r"dont|cannot|can'?t) (get|understand|grasp) (\w+ )?(at all|anything)\b|\bhelp me understand\b|\bexplain (why|"
    r"how)\b|\berklaer\w*,? (wie|warum|wieso|weshalb)\b|\b(dont|don'?t|do not|didn'?t) (get|understand|see|"
    r"grasp) (why|how|the)\b|\bthink recursively\b|\bbenefit\b|\b(versteh|verstehe) (ich )?(nicht|nich)\b|"
    r"\bwhat'?s the (idea|benefit)\b|\bwas bringt\b|\bueberhaupt\b|\b(der|den) sinn (von|des|der|dahinter)\b|"
    r"\bwhat'?s the (use|purpose|reason|sense|motivation|rationale)\b|\b(trying to|want to|wanna|need to|can'?t|"
    r"cannot|still) (get|understand|see|grasp|figure out) (why|how)\b|\bwhat (is|are) \w+( \w+)? (good|useful|"
    r"needed) for\b|\bwhat'?s (so )?special about\b|\b(the|der) (trick|kniff|idee) (behind|to|of|an|bei|hinter|"
    r"dahinter)\b|\bhow (do|can|would) (i|you|we|one) (spot|recogni[sz]e|tell|see|notice)\b|\bworan erkenn\w*\b|"
    r"\bin what sense\b|\binwiefern\b|\bin welchem sinne?\b"
)

RELATION = (
    r"\bthe other way (a)?round\b|\bumgekehrt\b|\b(does|do|is) .*\bimpl(y|ies)\b|\bfolgt (daraus|aus)\b|^(is|are|"
    r"sind|ist) (every|each|all|any|jede[rs]?|alle)\b|\bconfus\w*|\bverwirr\w*|\bdurcheinander\b|\bmix(ing)? up\b|"
    r"\bwhat'?s the (relation|connection|link)\b|\bzusammenhang\b|\bthe (relation|relationship|connection|"
    r"link) between\b|\b(are there|is there|gibt es) (any |a )?(cases?|situations?|scenarios?|faelle|fall|"
    r"situationen?)\b|\bhow (are|is) [^?]{1,40}\brelated\b|"
    # a yes/no question whether a property holds in general: "does a better heuristic always ...?"
    r"(^|[,.;:]\s*)(does|do|is|are|can|will|would|bringt|ist|sind|kann|hat|findet|gibt)\b[^?]*\b(always|immer|never|"
    r"necessarily|notwendigerweise|zwangslaeufig|automatically|automatisch|in general)\b[^?]*\?"
)

WHAT_IF = (
    r"\bwhat happens (to [^?.,]{1,40} )?if\b|\bwas (bedeutet|heisst|aendert) (das|es|dies|sich) (fuer|an)\b|\b(does|"
    r"do|would|will) [^?.]{0,60}\bmatter\b|\bspielt\b.*\brolle\b|\bwhat changes\b|\bwas passiert,? wenn\b|"
    r"\bwhat if\b|\bwould be fine\b|\bwhat (exactly )?(goes|can go|would go) wrong\b|\b(welchen|"
    r"was fuer einen) einfluss\b|\beinfluss (von|der|des|auf)\b|\bwhat (effect|impact|influence) (does|do|has|"
    r"have)\b|\b(effect|impact|influence) of\b|\b(does|do|would|can|will) [^?]{1,60}\b(affect|influence|impact|"
    r"change the (result|outcome|answer|output))\b|\b(beeinflusst|beeinflussen)\b|\bwhat (would|could|will|"
    r"might) (happen|go wrong|change|break)\b|\bwas (wuerde|koennte|wird) (passieren|schiefgehen|sich aendern)\b"
)

CHECK_REQUEST = CHECK

TAG_QUESTION = (
    r"(\bright|\bcorrect|\brichtig|\bkorrekt|\bor not|\boder|\bor false|\bnicht wahr|\bstimmt'?s?|\bisn'?t it|"
    r"\bdoesn'?t it|\bno|,\s*(is|isn'?t|does|doesn'?t|can|can'?t|are|aren'?t) (it|that|this|they)|\boder nicht|"
    r"\bnicht)\s*\?*\s*$|\b(right|correct|richtig|true|oder)\?|[,.;:]\s*(yes|ja|ne|gell|ok|okay|fine|true|wahr|"
    r"matches|match|agree|agreed|plausible|plausibel|makes sense|checks out|sound right|sounds right|"
    r"good enough)\s*\?+\s*$|\b(also|so|dann|then) (ja|yes|nein|no)\s*\?"
)
# A tag is not a confirmation request when the sentence it ends is itself an open (wh-) question ("wann ist es
# sinnvoll und wann nicht?"), and it adds nothing when a full check request already fired on the same words.
TAG_NOT_A_CHECK = (
    r"(^|[.!?]\s+)(why|how|what|when|which|where|warum|wieso|weshalb|wie|was|wann|welche\w*|wo)\b[^.!?]*\?*\s*$|"
    + CHECK
)

CONCLUSION_QUESTION = (
    r"[,.;:]\s*(so|then|thus|hence|therefore|dann|also|daher)\b[^?]*\?+\s*$|(->|→|=>|[,.;:])\s*(\w+ \d+ )?(so|then|"
    r"thus|hence|therefore|dann|also|daher)\b(?! (why|how|what|which|warum|wie|was))[^?]{2,}\?|"
    # a hedge on a stated result: "not 100% sure about ...", "bin mir nicht sicher"
    r"\bnot (\d+ ?% |totally |entirely |completely |quite )?sure (about|if|whether|that|it'?s|this|my)\b|\bunsure\b|"
    r"\bnicht (\d+ ?% |ganz |so )?sicher\b|(^|[,.;:)]\s*|\b(so|then|thus|hence|therefore|which means|dann|also|daher|"
    r"d\.h\.) )(so|then|thus|hence|therefore|which means|dann|also|daher|d\.h\.)?\s*(it|its|it'?s|that|thats|that'?s|"
    r"this|the|we|i|my|es|das|ist|sind|we get|i get|the answer)\b[^?]*\b(is|are|'s|ist|sind|fine|ok|okay|valid|"
    r"holds?|gilt|works?)\b[^?]*\?+\s*$|\b(so|then|also|dann) (it'?s|its|it is|that'?s|thats|es ist|das ist|ist es|"
    r"ist das) (fine|ok|okay|valid|correct|right|true|admissible|consistent|optimal|richtig|korrekt|zulaessig|"
    r"konsistent|optimal)\b|"
    # a message that opens with the conclusion drawn ("so tic-tac-toe has 9! leaves?"), not with an open question
    r"^(ok(ay)?,? )?(so|also|dann)\b,?(?! (why|how|what|when|which|where|warum|wieso|wie|was|wann|welche\w*|wo|is|"
    r"are|does|do|can|could|would|should|ist|sind|kann|muss|gibt)\b)[^?]{8,}\?"
)

OWN_ANSWER = OWN_ANSWER

ERROR_MESSAGE = (
    r"\b\w+(error|exception)\b|\berror\b|\btraceback\b|\bsegmentation fault\b|\bcore dumped\b|\bfehler(meldung)?\b|"
    r"\bstack overflow\b|\bmax(imum)? recursion depth\b|\brecursion (limit|depth) exceeded\b|"
    # Python's messages quoted without their exception name
    r"\bobject is not (subscriptable|callable|iterable)\b|\bhas no attribute\b|\bnot supported between\b|"
    r"\bout of range\b|\bis not defined\b|\bunhashable\b|\breferenced before assignment\b|\bdivision by zero\b"
)

WRONG_OUTPUT = (
    r"\bwrong (output|result|answer|path|order|value)s?\b|\bfalsche\w* (\w+ )?(ausgabe|ergebnis|wert|werte|pfad|weg|"
    r"reihenfolge|kosten|loesung|antwort|zug|knoten)\b|\b(instead of|statt) ([\[\d\"'(-]|the (number|result|sum|"
    r"value))|\bexpected\b.*\bgot\b|\bbut got\b|\boutput\b.*\bexpected\b|\bbut the (solution|answer|answer key|book|"
    r"lecture|musterloesung) (says|is|has|gives)\b|"
    # the learner's output set against a reference: "... but the answer sheet says 11"
    r"\bbut (the|my) (answer|solution|sheet|key|book|lecture|slides?|script|reference|expected|test|tests|grader|"
    r"autograder|answer sheet|answer key|sample solution|musterloesung)\b( \w+)? (says|say|has|gives|shows|lists|"
    r"expects)\b|\baber (die|das|der|laut) (musterloesung|loesung|loesungsblatt|skript|folie|folien|buch|tests?)\b|"
    r"\b(returns?|gives?|outputs?|prints?|liefert|gibt)\b.*\b(none|nothing|inf|0|backwards|negative|leere?|immer)\b|"
    r"\bkommt\b.*\braus\b.*\b(obwohl|statt)\b|\bkommt\b.*\b(none|nichts|immer|nie|0)\b.*\b(raus|zurueck)\b|"
    r"\bobwohl\b|\bis not sorted\b|\bnot the (shortest|optimal|right)\b|\bno matter what\b|\b(is|are|"
    r"comes out) (backwards|empty)\b|\bmissing the\b|\balways (picks|returns|gives|outputs|prints|chooses|says)\b|"
    r"\bnicht den (optimalen|kuerzesten)\b|\bloses?\b|\bdiffers? from\b|\bprunes? too much\b"
)

NOT_WORKING = (
    r"\b(doesn'?t|does not|isn'?t|won'?t|dont|don'?t|not) (work|terminate|stop|finish|halt|sort)\w*|"
    r"\bnever (terminates|stops|finishes|finds|ends|returns)\b|\bfunktioniert nicht\b|\bgeht nicht\b|\bkaputt\b|"
    r"\bbroken\b|\bfindet\b.*\bnie\b|\bsomething('?s| is) (off|not right|wrong)\b|\b(terminiert|haelt|stoppt|endet|"
    r"klappt|sortiert)\b( [\w*-]+){0,3} nicht\b|\blaeuft (einfach |immer )?weiter\b|\b(so|too|super|really|extremely|"
    r"painfully|ultra) slow\b|\b(so|zu|extrem) langsam\b|\btests? (fail|fails|failed|are failing|break)\b|"
    r"\bfailing tests?\b|\b(is|are|seems|looks) (a bit |slightly |completely )?off\b|\bnothing happens\b|"
    r"\bpassiert (einfach |gar |ueberhaupt )?nichts\b|\b(doesn'?t|does not|don'?t|do not|didn'?t) (seem to |"
    r"really )?(do anything|help|change anything|make a difference|have any effect|speed (it|anything) up)\b|"
    r"\b(just |still )?as (slow|bad|long) as (before|without)\b|\bstill (too |so |very |really )?(slow|wrong|broken|"
    r"crash\w*|fail\w*|loop\w*|hang\w*|empty|zero|none)\b|\bimmer noch (zu |so |sehr )?(langsam|falsch|kaputt|leer|"
    r"unsortiert)\b|\bstill (unsorted|unchanged)\b|\bbringt (gar |ueberhaupt )?nichts\b|\b(irgend)?(was|"
    r"etwas) stimmt\b.*\bnicht\b|\bstimmt (da|hier|damit|dabei|bei mir)( \w+)? nicht\b|"
    # works in one case but not in another
    r"\bworks (on|for|with|when|if)\b[^.?!]*\bbut (on|for|with|when|if|not|as soon|once|fails|crashes|dies|breaks)\b|"
    r"\bfunktioniert (bei|fuer|mit)\b[^.?!]*\baber (bei|fuer|mit|nicht)\b|\bsuper slow\b|\bnever finishes\b|"
    r"\bnicht richtig\b"
)

HANGS_OR_CRASHES = (
    r"\binfinite loop\b|\bloops? forever\b|\bruns? forever\b|\bhangs?\b|\bhaengt\b(?![^.?!]*\bab\b)|\bstuck\b|"
    r"\bcrash\w*|\bendless\w*|\bendlos\w*|\bstuerzt\b.*\bab\b|\babstuerz\w*|\bfreez\w*|\b(it|program|code|solver|"
    r"script|kernel|process) dies\b|\bdies (with|on|after|when|at)\b|"
    # still running long after it should have finished
    r"\b(still|been|keeps) running\b|\brunning for (\d+|over|more than|hours|minutes|ages|ever)\b|\btakes forever\b|"
    r"\blaeuft (seit|immer noch|ewig)\b|\bdauert ewig\b|\bewig\b|\b(loops?|looping|cycles?|cycling|bounces?|bouncing|"
    r"oscillat\w*|springt|pendelt)\b[^.?!]{0,40}\b(forever|endlessly|endlos|ewig|hin und her|back and forth)\b|"
    r"\b(runs?|running|ran) out of memory\b|\bout of memory\b|\bmemory ?error\b|\bspeicher (voll|ueberlauf|"
    r"laeuft voll)\b|\bgets killed\b"
)

FIND_BUG = (
    r"\bbugs?\b|\bdebug\w*|\bwhat('?s|s| is) wrong( here| with (my|this|it|the code|mine)\b|\s*[?.!]*$)|"
    r"\bwhat am i doing wrong\b|\b(was|wo) (mache|mach) ich\b.*\bfalsch\b|\bwas (ist|laeuft)\b.*\b(falsch|schief)\b|"
    r"\bwo ist der (fehler|bug)\b|\bwhere (is|could) the (mistake|bug|error)\b|\bmistake\b|\b(is|could) (this|that|"
    r"it) (be )?the (problem|issue|cause|reason|bug|mistake)\b|\bliegt (es|das) (daran|an)\b|\bcould (that|this|"
    r"it) be (why|the reason|what)\b|\bkoennte (es|das) (daran|der grund)\b|\bcant find\b|\bcan'?t find the\b|"
    r"\bhelp,? my\b|\bhilfe,? (mein|meine|bei meinem)\b|\bwhat'?s going on\b|\bany idea\b|"
    # the learner's own hypothesis about the cause: "i think slicing is the problem"
    r"\b(?<!what )(is|was|might be|could be|must be) the (problem|issue|culprit|cause|bug)\b"
)

BEHAVIOUR_REPORT = (
    rf"\bmy (?!{OWN_CLAIM_NOUN}\b)([\w*-]+ ){{0,6}}?[\w*-]+ {RUN_VERB_EN}\b|\bmein\w* (?!(loesung|antwort|ergebnis|"
    rf"rechnung|freund|professor|prof|dozent|tutor|buch|mitschrift|folien|vorlesung|uebung|"
    rf"aufgabe)\b)([\w*-]+ ){{0,4}}?[\w*-]+ {RUN_VERB_DE}\b|"
    r"\b(bei|in|with|for) (meinem|meiner|my) [\w*-]+( [\w*-]+)?\b.*\b(kommt|kommen|gets?|comes? out|ends? up)\b|"
    rf"\bmy (\w+ )?(code|program|programm|implementation|function|script|query|bot|algorithm|"
    rf"solver)\b.*\b{RUN_VERB_EN}\b|\bmein\w* (\w+ )?(code|programm|implementierung|funktion|skript|abfrage|"
    rf"algorithmus)\b.*\b{RUN_VERB_DE}\b|\b(in|with) my (code|program|implementation|version)\b.*\b{RUN_VERB_EN}\b|"
    r"\bmy [\w*-]+( [\w*-]+)? (is|seems|looks) (wrong|broken|buggy|incorrect|off)\b|"
    rf"\bmy (?!{OWN_CLAIM_NOUN}\b)([\w*-]+ ){{0,4}}?(is|are|seems|looks|runs|gets|becomes|ist|wird|sind) ({ANOMALY})|"
    r"\bmein\w* [\w*-]+( [\w*-]+)? (ist|scheint) (falsch|kaputt|fehlerhaft)\b|\bwhen i (run|call|execute|start|"
    r"test) (it|this|them|the|my)\b|\bwenn ich (\w+ ){0,6}(aufrufe|ausfuehre|starte|laufen lasse|teste|loslasse|"
    r"anwende|benutze)\b|\bmy output\b|\bmeine ausgabe\b|"
    rf"\bmy (?!{OWN_CLAIM_NOUN}\b)([\w*-]+ ){{0,4}}?(is|are|keeps|was|were) (return|print|giv|output|pick|choos|"
    rf"expand|explor|"
    r"visit|prun|find|generat|produc|skipp|ignor|loop|runn|add|push|popp|mark|swapp|sort|miss|dropp|repeat|revisit|"
    r"overwrit|crash|hang|stopp|fail)ing\b|"
    # a program as the subject, with or without "my": "the mcts bot ignores ...", "die KI opfert ..."
    rf"\b(bot|ai|ki|agent|program|programm|solver|implementation|implementierung|script|skript|"
    rf"engine)\b( \w+)? ({RUN_VERB_EN}|{RUN_VERB_DE})\b"
)

BAD_BEHAVIOUR = (
    rf"\b(?!says\b){RUN_VERB_EN}\b( me)?.{{0,60}}({ANOMALY})|\b{RUN_VERB_DE}\b( mir)?.{{0,60}}({ANOMALY})|"
    r"\bkeeps? \w+ing\b|\bover and over\b|\b(never|barely|hardly|rarely|nie|kaum) (\w+ )?(prunes?|expands?|finds?|"
    r"reaches|visits?|returns?|stops?|terminates|ends?|schneidet|findet|erreicht|terminiert|haelt)\b"
)

EXPECTED_DIFFERS = (
    r"\bbut (the )?(optimal|correct|right|real|actual|expected|true|shortest|cheapest|best|solution|answer)\b|"
    r"\bbut (it )?(should|is supposed|ought)\b|\bthan (it|they|necessary|needed|expected) ?(should|shud)?\b|\b(is|"
    r"are|was) supposed to\b|\bsollten? aber\b|\baber\b.*\bsollten?\b|\bshould\b.*\bbut\b|\baber (richtig|korrekt|"
    r"eigentlich|optimal|es sollte)\b|\b(richtig|korrekt|optimal) waere\b|\beigentlich (sollte|muesste|waere)\b|"
    r"\bmuesste\b|\beven though (there|it|the|i|a)\b|\bobwohl\b|\bshould (be|give|return|output|print) [^?]*\bbut\b"
)

IMPLEMENTATION_DETAIL = (
    r"\bi (use|do|test|check|mark|push|pop|generate|break|store|set|call|append|initiali[sz]e|only|never|always|"
    r"compute|update|sort|return|pass|add|remove)\b(?! (i|it) )|\bich (markiere|benutze|verwende|teste|pruefe|"
    r"speichere|setze|rufe|nehme|sortiere|aktualisiere|berechne|gebe)\b|`[^`]*[=(.\[][^`]*`"
)

STEP_BY_STEP = (
    r"\bstep[- ]by[- ]step\b|\bone (\w+ )?at a time\b|"
    # the state at every point of a run; a bare "every iteration" describes an algorithm and is not a request
    r"\b(after|at|for|in|on|during|with) (each|every) (step|iteration|swap|call|line|recursive call|node|level|depth|"
    r"round|pass|expansion|move|pop)\b|\b(each|every|jede[nmrs]?) (node|step|state|call|move|knoten|schritt|zustand|"
    r"aufruf) (you|it|that|which|we|den|der|die) (\w+ )?(expand|visit|pop|generate|reach|make|take|expandier|"
    r"besuch)\w*|\b(an|bei|nach|in|fuer) jede[mnr]? (schritt|knoten|iteration|ebene|level|runde|aufruf|zug|durchlauf|"
    r"expansion)\b|\bafter each\b|\bschritt fuer schritt\b|\bnach jedem\b|\bin jede[rm] (iteration|schritt|"
    r"schleifendurchlauf)\b|\bjedem (rekursiven|schleifendurchlauf|schritt)\b|\b(cell|line|edge|frame|stage|row|"
    r"zeile|level) (by|fuer|for) (cell|line|edge|frame|stage|row|zeile|level)\b|\bat each\b|\bnacheinander\b|"
    r"\bder reihe nach\b|\bzwischenschritt\w*|\bintermediate steps\b|\ball (the )?(steps|intermediate)\b|\b(show|"
    r"list|give|write|tell)\b[^.?!]{0,50}\b(each|every|all( the)?) (\w+ )?(step|steps|pass|passes|swap|swaps|"
    r"iteration|iterations|call|calls|expansion|expansions|move|moves)\b|\balle(n)? schritte\w*\b|\b(?!(side|little|"
    r"day|year|one)\b)(?P<unit>\w+) (by|for|after|fuer|um|nach) (?P=unit)\b"
)

WALK_THROUGH = (
    r"\bwalk (me )?(through|thru)\b|\b(go|going) (through|thru)\b|\bstep through\b|\bdry run\b|^(?!.*\b(my|"
    r"meine[nm]?) ([\w*-]+ )?trace\b).*\btrace\b(?! (check|pruefen))|\bdurchgeh\w*|"
    r"\bshow (me )?(\w+ ){0,3}(iteration|run|pass|round|expansion|execution)\b|\blist (every|each|all)\b|\bhow (do|"
    r"would|can) (i|you|we|one) (run|apply|execute)\b|\bsimulate\b|\bsimuliere\w*|\brun \w+( \w+)? on\b|"
    r"\bfuehr\w*\b.*\bdurch\b|\bgeh\w*\b.*\bdurch\b|\bablauf\b|\bablaeuft\b|\blaeuft\b.*\bab\b|\bdemonstrate\b|"
    r"\bshow (me )?(how|the steps|each|every|which|what)\b|\bhow would \w+ process\b|\bshow the\b|"
    r"\bzeig\w*\b.*\b(ablauf|wie|schritte)\b|\baufbauen\b|\bgets filled\b|\bdurch(spiel|rechn|lauf|gang|exerzier)\w*|"
    r"\bvor(rechn|mach|fuehr)\w*|\b(spiel|rechne)\w*\b.*\bdurch\b|\b(work|play|run|talk) (me |us )?(through|thru)\b|"
    r"\b(rechne|mach|fuehr|spiel|zeichne)\w*\b.*\bvor\s*([?.!,;]|$)|\bshow (me )?the (steps|states|values|queue|"
    r"stack|frontier)\b"
)

WHAT_NEXT = (
    r"\bwhat happens next\b|\bnext step\b|\bwhich \w+ comes next\b|\bcomes next\b|\bthen what\b|"
    r"\bwas passiert (als naechstes|dann|danach)\b|\bwie geht es\b.*\bweiter\b|\bnaechste[rn]? schritt\b|"
    r"\bwhat happens (at|after|when)\b|\bwas passiert (bei|nach)\b|\b(what|which|wo|welche\w*)\b.{0,30}\bnext (node|"
    r"step|state|iteration|call|move)\b|\b(what|which|welche\w*) [\w*-]+ (does|do|would|will|is|wird|nimmt|"
    r"waehlt) [^?]{0,30}\b(next|als naechstes)\b|\b(pick|choose|expand|pop|visit|take)\w* next\b|\b(with|to|for|"
    r"at) the next (leaf|node|child|edge|city|state|element|pair|level|call|move|value)\b|\bwhat('?s|"
    r" is) the output of (this|that|the (code|program|snippet|call|loop)|my|[\w.]+\()|\bwhat('?s| is| gets|"
    r" does it)? (printed|output|returned|displayed|shown)\b|,\s*(and )?then\s*\?+\s*$|\bund dann\s*\?+\s*$|"
    r"\bwhat (does|would) (this|the|it) \w* ?print\b|\bwhat (does|would|will) [\w*-]+(\([^)]*\))? (print|output|"
    r"return|show|display)\b"
)

STATE_EACH_STEP = (
    r"\bin (what|which) order\b|\b(what'?s|what is|whats|what are|was ist|was liegt|was steht) (on|in|auf|im|"
    r"in der) (the |dem |der )?(call )?(stack|queue|frontier|heap|open list|table|tabelle|warteschlange)\b|"
    r"\bwhich (node|child|children|move|state|city|edge|arc|variable|value|element|pivot|branch|leaf|"
    r"leaves)\w* (does|do|would|will|gets?|is|are) [^?]{0,30}\b(pick|choose|select|expand|visit|pop|prune|take|"
    r"assign)\w*|\bin welcher reihenfolge\b|\bin order\b(?! to)|\b(what'?s|what is|whats|give me|"
    r"list) the (\w+ )?order\b(?! of)|\bhow do the (\w+ )?(values?|costs?|bounds?|scores?|distances?|labels?) (go|"
    r"propagate|change|move|get|flow|update)|\bwhich (nodes|states|cells|values|calls|moves|variables|arcs|edges|"
    r"leaves|children|subtrees|branches)\b.{0,20}\b(looked at|evaluated|examined|touched|visited|expanded|popped|"
    r"pruned|generated|explored|called|made|removed|deleted|assigned|added|pushed|cut|eliminated|updated)\b|"
    r"\bwelche (knoten|zustaende|werte|zuege|staedte|variablen|kanten)\b.{0,30}\b(expandiert|besucht|entfernt|"
    r"gestrichen|abgeschnitten|zugewiesen|ausgewaehlt)\w*|\bwhat (values?|numbers?|costs?|labels?) (end up|"
    r"get propagated|propagate|go|are (written|stored)) (at|in|on|to)\b|\bafter [\w*-]+ ?= ?\w+|\bat (node|"
    r"knoten) [a-z]\b|\bwhen (we|you|it|i) (reach|get to|visit|pop|expand|arrive at) (node |knoten )?[a-z]\b|"
    r"\bwhat happens (in|during|on|at) the (first|second|third|fourth|\d+\w*|next|last)\b|\bwhat does the (frontier|"
    r"queue|stack|open list|fringe|table|heap|call tree|recursion tree|search tree|call stack|array|dp table|board|"
    r"matrix)\b.*\blook like\b|\bhow does the (call )?(stack|queue|table|heap|tree)\b.*\blook\b|\bwie sieht (der|die|"
    r"das)\b.*\baus\b|\bwie (veraender|entwickel)\w* sich\b|\bhow (does|do) the (\w+ )?(frontier|queue|stack|table|"
    r"heap|tree|array|list|values?|distances?) (evolve|develop|change|grow)\b|\bhow do(es)? [^?]{1,30}\b(change|"
    r"evolve|develop|get updated|update)\b[^?]{0,30}\b(during|while|as|over)\b|\bwhat is in the (queue|stack|"
    r"priority queue|frontier)\b|\blist the expanded\b|\bin the order\b|\bwhat (does|do|is|"
    r"are) (in )?the (\w+ )?(frontier|queue|stack|open list|fringe|table|heap|list|set)\b.*\b(contain|hold|look like|"
    r"after|at|when)\b|\bafter (expanding|popping|visiting|adding|removing|inserting|processing|exploring|"
    r"pushing) (node )?([a-z]|the (root|start|first|next|goal))\b|\bnach dem (expandieren|besuchen|einfuegen|"
    r"entfernen) \w+|\bwhat (goes|gets added|is added|comes|gets pushed) (in|into|onto|on|to) the (frontier|queue|"
    r"stack|heap|list|open list)\b|\bafter (the )?(first|second|third|fourth|fifth|\d+(st|nd|rd|th)?|next|"
    r"last) (\w+ )?(iteration|step|expansion|pop|round|call|move|pass)\b|\bnach (dem|der) (ersten|zweiten|dritten|"
    r"vierten|\d+\.) (\w+ )?(iteration|schritt|expansion|runde|aufruf|durchlauf)\b"
)

# A how-question about a run ...
HOW_RUN = (
    r"\bhow (does|do|would|did|will|is|are|can)\b|\bwie (laeuft|funktioniert|geht|arbeitet|sieht)\b|\bwie (wuerde|"
    r"wird|wuerden|ginge)\b.{0,40}\b(vorgehen|laufen|arbeiten|entscheiden|aussehen|ablaufen)\b|"
    # ... or an embedded how-clause about what it does ("describe how quicksort partitions [5,3,8]")
    r"\bhow [\w*-]+( [\w*-]+)? (partitions|splits|merges|builds|processes|fills|handles|sorts|expands|visits|"
    r"explores|prunes|searches|finds|picks|chooses|runs|proceeds|traverses|inserts|removes|updates)\b|"
    # ... or a request to carry the method out
    r"\blet'?s (do|run|go through|trace|try|work through)\b|\blass uns\b|\b(can|could|would) (you|u|"
    r"someone) (please |pls )?(do|run|perform|execute|apply|solve)\b|\b(kannst|koenntest|koennen|koennten) (du|ihr|"
    r"wir|sie)\b.{0,90}\b(machen|anwenden|ausfuehren|loesen|durchfuehren|rechnen)\b|"
    # ... or what it does / yields there
    r"\bwhat (does|do|would|will) [\w*-]+( [\w*-]+)? (do|return|output|produce|give|yield)\b|\bwhat('?s| is|"
    r" are) the (result|output|outcome|order|path|value)s? (of|from|for|when)\b|^(please |pls |bitte )?(run|do|apply|"
    r"execute|expand|fill( in)?|compute|calculate|draw|write down|simulate) \w+|^(bitte )?(rechne|berechne|fuehre|"
    r"spiel|mach|zeichne|fuell|expandiere|zeig)\w*\b"
)
# ... on a concrete instance the learner names: a literal list, "on the campus map", "figure 3.1", "aufgabe 4".
INSTANCE = (
    r"\[[^\]]*\d[^\]]*\]|\b\d+(,? \d+){2,}\b|'[a-z0-9]{1,12}'|\b(this|that|these|our|the following|the given|the new|"
    r"the small|diesem|dieser|diesen|dem folgenden|unserem|unserer) ([\w*.-]+ ){0,3}(map|graph|tree|grid|example|"
    r"instance|board|list|array|puzzle|karte|baum|graphen|beispiel|liste)\b|\b(map|karte)\b|\b(the|dem|im|"
    r"das) ([\w*-]+ ){0,2}(example|beispiel)\b|\b(from|in|on|of|aus|in|auf) (the|der|dem) (lecture|slides?|exercise|"
    r"sheet|book|script|vorlesung|uebung|folie|folien|skript|aufgabe)\b|\b(graph|tree|map|grid)\s*:|\b[a-z] ?(-|"
    r"->) ?[a-z],? \(?\d|\b(figure|fig|slide|abb|abbildung|folie|aufgabe|exercise|task|problem|uebung|blatt|sheet|"
    r"q) ?\d"
)
# ... unless the instance only illustrates a general question about designing a method.
NOT_A_RUN = r"\bin general\b|\bgenerally\b|\ballgemein\w*|\bcome up with\b|\bausdenk\w*|\bdesign\w*"

# The learner says it works: what follows is a request to review, not a bug report.
WORKS_CLAIMED = (
    r"\b(?<!how )(?<!why )(?<!what )(this|it|that|mine|my code|the code|everything) (works|runs) (fine|for me|"
    r"correctly|ok|okay|on (all|every|my)\b)(?![^.?!]*\bbut (on|for|with|when|if|not)\b)|\btests? (pass|passes|"
    r"laufen durch|sind gruen)\b|\bfunktioniert (bei mir|soweit)\b"
)
# Any other how-question about a method: how it knows, decides, avoids ... (weaker than how_it_works).
HOW_QUESTION = r"\bhow (does|do|is|are|can|could|would|did)\b|\bwie (kann|weiss|merkt|entscheidet)\b"

# Pasted code and what "this" does when run ("this explores deep first not wide, why").
CODE_BEHAVIOUR = (
    rf"(\b(this|it|the code|the function|that|es|der code|die funktion)|\b\w+\([^)]*\)) (\w+ )?{RUN_VERB_EN}\b|"
    rf"\b(das|es|der code|die funktion) (\w+ )?{RUN_VERB_DE}\b"
)

# A statement (no question at all) that something of the learner's contradicts itself: "my LCS table has 5 in the
# corner but the strings only share 4 letters".
CONTRADICTION = r"^(?!.*\?)(?=.*\b(my|mein\w*)\b).*\b(but|aber|obwohl|even though|although)\b"
