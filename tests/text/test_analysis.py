"""Claim extraction and the text features, without a model."""

from __future__ import annotations

import pytest

pytest.importorskip("pysbd")

from veracity.judges.offline.claims import (
    agreeing_replies,
    conjuncts,
    extract,
    short_reply_parts,
)
from veracity.text import analysis as tx


def test_sentences_are_split_and_glued_sentences_unglued() -> None:
    found = tx.sentences("It was built in 1889.It is in Paris. Dr. Smith lives there.")
    assert found == ("It was built in 1889.", "It is in Paris.", "Dr. Smith lives there.")


def test_initials_do_not_end_a_sentence() -> None:
    assert tx.sentences("He was born J. R. Cash in Arkansas.") == (
        "He was born J. R. Cash in Arkansas.",
    )


def test_a_file_name_starting_with_a_dot_does_not_end_a_sentence() -> None:
    assert tx.sentences("Secrets are read from a .env file. Then it starts.") == (
        "Secrets are read from a .env file.",
        "Then it starts.",
    )
    assert tx.sentences("Edit ~/.bashrc and add .NET 8 to .gitignore.") == (
        "Edit ~/.bashrc and add .NET 8 to .gitignore.",
    )
    # a full stop set apart by spaces (tokenised chat text) still ends its sentence
    assert tx.sentences("i like it . do you ? It ended . Then it began.") == (
        "i like it .",
        "do you ?",
        "It ended .",
        "Then it began.",
    )


def test_claims_split_sentences_and_drop_refusals_and_greetings() -> None:
    found = extract("Hello! Paris is the capital of France. I don't know its population.")
    assert found.claims == ("Paris is the capital of France.",)
    reasons = [why for _, why in found.dropped]
    assert reasons == ["a greeting or filler", 'a refusal ("i don\'t know")']
    assert any("pronouns are not resolved" in note for note in found.notes())


def test_clauses_split_only_where_both_sides_are_clauses() -> None:
    found = extract(
        "The tower was built in 1889 and it was designed by Gustave Eiffel; it is tall."
    )
    assert found.claims == (
        "The tower was built in 1889.",
        "It was designed by Gustave Eiffel.",
        "It is tall.",
    )
    kept = extract("Crayola makes products for home and school use, beginning with chalk.")
    assert len(kept.claims) == 1
    assert extract("It was built in 1889 and it was tall.", split_clauses=False).claims == (
        "It was built in 1889 and it was tall.",
    )


def test_hedges_and_questions_keep_the_statement_inside() -> None:
    assert extract("I'm not sure, but the film was released in 2004.").claims == (
        "The film was released in 2004.",
    )
    assert extract("Did you know that Jefferson wrote his own Bible?").claims == (
        "Jefferson wrote his own Bible.",
    )
    assert extract("Goldendoodles are designer dogs, do you like them?").claims == (
        "Goldendoodles are designer dogs.",
    )
    assert extract("What do you think? Yes, it is.").claims == ()
    assert extract("yes, did you know snoop dogg wrote a fight song?").claims == (
        "Snoop dogg wrote a fight song.",
    )
    assert extract("He is my favorite too, I wonder if he still acts?").claims == (
        "He is my favorite too.",
    )
    assert extract("Have you heard that the tower was moved in 1901?").claims == (
        "The tower was moved in 1901.",
    )
    assert extract(":) do you know that Chrome is a freeware browser?").claims == (
        "Chrome is a freeware browser.",
    )


@pytest.mark.parametrize(
    "question",
    [
        "do you know what mission they have?",
        "Did you know who wrote it?",
        "Do you know if it is still open?",
        "How about the winter sport skis, how do you do it?",
        "What about the sequel, did you like it?",
        "Have you heard Hound Dog by Elvis?",
    ],
)
def test_a_question_that_asks_rather_than_tells_makes_no_claim(question: str) -> None:
    found = extract(question)
    assert found.claims == ()
    assert [why for _, why in found.dropped] == ["a question"]


def test_a_lower_case_sentence_after_an_exclamation_is_its_own_sentence() -> None:
    found = extract("la la land is a great musical! do you enjoy musicals?")
    assert found.claims == ("La la land is a great musical!",)
    assert found.dropped == (("do you enjoy musicals?", "a question"),)


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        ("No but it has a 92% rating.", ("It has a 92% rating.",)),  # not a negation
        ("no, it was built in 1889.", ("It was built in 1889.",)),
        (
            "yes and they are so strong that you can hear them",
            ("They are so strong that you can hear them.",),
        ),
        ("No one knows who built it.", ("No one knows who built it.",)),
        (
            "Well known for his films, he lived in Rome.",
            ("Well known for his films, he lived in Rome.",),
        ),
        ("Oh that is true. I believe it was. Yes, he is. Me too!", ()),
    ],
)
def test_a_reply_opener_is_not_part_of_the_claim(text: str, claims: tuple[str, ...]) -> None:
    assert extract(text).claims == claims


def test_a_name_is_a_word_the_contexts_can_contain() -> None:
    assert tx.names("He sold it to L.F. Rothschild and Green-Ellis.") == {"green": "Green"}


def test_empty_and_refusal_only_texts_have_no_claims() -> None:
    assert extract("").claims == ()
    assert extract("I don't know. Thanks!").claims == ()
    assert extract("You're welcome! The documents don't answer this.").claims == ()
    assert extract("Glad I could help. Paris is in France.").claims == ("Paris is in France.",)


def test_a_decimals_closing_zeros_are_no_other_number() -> None:
    # "0.20%" in a context and "0.2%" in a faithful paraphrase: the same number.
    assert tx.numbers("a rate of 0.20% on 5.0 kg, version 2.10.0") == {"0.2", "5", "2.10.0"}
    assert tx.numbers("0.0 and 10.50") == {"0", "10.5"}


def test_numbers_names_and_negation() -> None:
    assert tx.numbers("In 1889 it cost 1,000 francs and weighed 7.3 tons; two lifts.") == {
        "1889",
        "1000",
        "7.3",
        "2",
    }
    found = tx.names("The tower, designed by Gustave Eiffel, is in Paris.")
    assert set(found.values()) == {"Gustave", "Eiffel", "Paris"}
    assert tx.names("The tower is tall.") == {}
    assert tx.negated("It isn't open") and tx.negated("It was never finished")
    assert not tx.negated("It is open on Mondays")


def test_content_tokens_are_stemmed_without_stopwords() -> None:
    assert tx.content_tokens("The lifts were jumping over two houses") == tx.content_tokens(
        "lift jumped over 2 house"
    )
    assert tx.content_tokens("It was the one") == []
    for a, b in [("cities", "city"), ("making", "make"), ("boxes", "box"), ("ran", "ran")]:
        assert tx.stem(a) == tx.stem(b)
    assert tx.stem("status") != tx.stem("statue")


def test_a_words_forms_share_one_stem_and_a_number_is_one_word() -> None:
    # The endings a light stemmer got wrong: "agreed" lost its "ed" and then its "e".
    for forms in [
        ("agree", "agrees", "agreed"),
        ("invest", "invested", "investment"),
        ("exceed", "exceeds"),
        ("house", "houses"),
        ("complete", "completely"),
    ]:
        assert len({tx.token(w) for w in forms}) == 1, forms
    # A decimal or a thousands figure is one word, written as numbers() writes it.
    assert tx.content_tokens("a fee of 0.20% on 1,000 units") == tx.content_tokens(
        "fee 0.2 % 1000 unit"
    )
    assert "2" not in tx.content_tokens("It costs 0.2% a year.")


def test_a_sameness_of_two_things_is_read() -> None:
    assert tx.compares("Do X and Y have the same nationality?")
    assert tx.compares("The canal is the same length as the Augusta Canal.")
    assert not tx.compares("The same year, he moved to Paris.")
    assert not tx.compares("In the same year, Smith and Jones married.")


def test_a_bound_is_no_negation() -> None:
    for bound in ("no later than 30 days", "not more than five", "no fewer than ten people"):
        assert not tx.negated(f"Submit it {bound}."), bound
    assert tx.negated("It is no longer sold") and tx.negated("There is no later train")
    assert tx.negations("No more than two, and not on Sundays.") == 1


def test_without_negates_the_phrase_it_opens_alone() -> None:
    early = "The loan can be repaid early at any time without a penalty."
    repaid = {tx.token("loan"), tx.token("repaid"), tx.token("early")}
    assert not tx.negated_about(early, repaid)
    assert tx.negated_about(early, {tx.token("penalty")})
    # stopwords before the phrase are skipped; the first one after it ends the phrase
    assert tx.negated_about("He left without any further payment.", {tx.token("payment")})
    assert not tx.negated_about("Shot without the store knowing, in Burbank.", {"burbank"})
    # every other negation bears on the whole text, as does a "without" that opens nothing
    assert tx.negated_about("The loan cannot be repaid early.", repaid)
    assert tx.negated_about("There is no evidence that tea extends life.", {"tea"})
    assert tx.negated_about("She managed without.", {"manag"})
    # concerning nothing: as negated()
    assert tx.negated_about(early, set()) is tx.negated(early) is True


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        (
            "Rovira Bank acquired Tessel Mobile in 2019.",
            "Tessel Mobile acquired Rovira Bank in 2019.",
        ),
        ("The landlord pays the tenant a deposit.", "The tenant pays the landlord a deposit."),
        ("Frogs eat herons in shallow ponds.", "Herons eat frogs in shallow ponds."),
        # both passive: still exchanged
        ("The mayor was elected by the council.", "The council was elected by the mayor."),
        # the predicate is only a linking word, the same in both
        ("The update replaced Python with Rust.", "The update replaced Rust with Python."),
    ],
)
def test_participants_exchanged_around_their_predicate_are_swapped_roles(
    claim: str, context: str
) -> None:
    assert tx.swapped_roles(claim, context)


@pytest.mark.parametrize(
    ("claim", "context"),
    [
        # active against passive: the same statement
        ("The council was sued by the mayor.", "The mayor sued the council."),
        # "and" orders nothing
        ("Oslo and Bergen hosted the games.", "Bergen and Oslo hosted the games."),
        # adverbials of time and place move freely; numbers are not participants
        ("In Lyon, Dupont opened a bakery in 1921.", "In 1921, Dupont opened a bakery in Lyon."),
        ("The team that is the offense runs the play.", "The offense, which is the team, runs."),
        # the same order, or too few shared words to say
        ("Tessel Mobile acquired Rovira Bank.", "Tessel Mobile acquired Rovira Bank in 2019."),
        ("Herons eat frogs.", "Storks nest on roofs across Alsace."),
    ],
)
def test_reordering_that_keeps_the_roles_is_not_a_swap(claim: str, context: str) -> None:
    assert not tx.swapped_roles(claim, context)


def test_a_short_span_of_years_names_both_years() -> None:
    assert tx.numbers("in the 2021–22 season") == {"2021", "2022"}
    assert tx.numbers("in the 1998/99 season") == {"1998", "1999"}
    assert tx.numbers("pages 12-19") == {"12", "19"}  # not years: left as they are


def test_a_sentence_is_cut_where_its_clauses_meet() -> None:
    found = tx.sentence_clauses("Store below 25°C; do not freeze.")
    assert found == ["Store below 25°C", "do not freeze."]
    assert tx.sentence_clauses("The bridge is open, but the tunnel is not.") == [
        "The bridge is open",
        "the tunnel is not.",
    ]
    assert tx.sentence_clauses("The bridge is open.") == ["The bridge is open."]


@pytest.mark.parametrize(
    ("question", "answer", "claim"),
    [
        ("Is insulin made in the liver?", "Yes.", "Yes, is insulin made in the liver?"),
        ("Is insulin made in the pancreas?", "No", "No, is insulin made in the pancreas?"),
        (
            "I read the policy. Does it cover floods?",
            "No, it doesn't.",
            "No, does it cover floods?",
        ),
        ("Are refunds paid in cash?", "Nope!", "No, are refunds paid in cash?"),
    ],
)
def test_a_bare_yes_or_no_to_a_yes_no_question_claims_its_answer(
    question: str, answer: str, claim: str
) -> None:
    # Dropped as filler, a wrong "No" would make no claim and score vacuously faithful.
    assert extract(answer, question=question).claims == (claim,)


@pytest.mark.parametrize(
    ("question", "answer", "claim"),
    [
        ("What is the capital of Germany?", "Paris.",
         "Paris. (asked: What is the capital of Germany?)"),
        ("Which organ makes insulin?", "It's the pancreas.",
         "It's the pancreas. (asked: Which organ makes insulin?)"),
        # the question's last sentence; the word it asks for may come back
        ("I read the page. How many days do refunds take?", "14 days",
         "14 days. (asked: How many days do refunds take?)"),
        ("In which city was it signed?", "Versailles",
         "Versailles. (asked: In which city was it signed?)"),
        # a subject of the question's own words names nothing: the reply is "Paris"
        ("What is the capital of Germany?", "The capital is Paris.",
         "The capital is Paris. (asked: What is the capital of Germany?)"),
    ],
)  # fmt: skip
def test_a_short_reply_to_a_direct_question_keeps_its_question(
    question: str, answer: str, claim: str
) -> None:
    assert extract(answer, question=question).claims == (claim,)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is the capital of Germany?", "The tower is in Paris."),  # a subject of its own
        ("What did humans evolve from?", "Humans evolved from primates."),  # restates it
        ("What is the capital of Germany?", "I think it is Berlin."),
        ("What is the capital of Germany?", "Not Paris."),  # negated
        ("Who represents the district that Gawthorpe is in?", "Julie Cooper."),  # two facts
        ("Jake wrote a film directed by who?", "Roger Christian."),  # not asked directly
        ("Tell me the capital of Germany.", "Berlin."),  # no question
        ("What is the capital of Germany?", "Berlin. Paris is France's."),  # two claims
    ],
)
def test_other_replies_to_a_question_are_their_own_claims(question: str, answer: str) -> None:
    assert extract(answer, question=question) == extract(answer)


def test_hostile_questions_and_replies_keep_a_reply_readable() -> None:
    odd = "\x00What\x07 is the capital\u202e of Germany?\n"
    assert extract("Paris.", question=odd).claims == ("Paris.",)  # not a direct question
    # a question of thousands of words is no direct question: the reply stands alone
    assert extract("Paris.", question="What " * 5000 + "?").claims == ("Paris.",)
    assert extract("Paris.", question="What is it (asked: who?)?").claims == ("Paris.",)
    # a reply that holds the marker itself is still split at the last one
    claim = extract("Paris (asked: who?)", question="What is the capital of Germany?").claims
    assert short_reply_parts(claim[0]) == (
        "Paris (asked: who?).",
        "Paris (asked: who?).",
        "What is the capital of Germany.",
    )


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is insulin?", "No."),  # not a yes/no question
        ("Is it?", "Yes."),  # a question with nothing to check
        ("Is insulin made in the liver?", "No doubt."),  # not a reply
        ("Is insulin made in the liver?", ""),
    ],
)
def test_other_replies_are_read_as_before(question: str, answer: str) -> None:
    assert extract(answer, question=question) == extract(answer)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "are both The New Pornographers and Kings of Leon American rock bands?",
            (
                "are The New Pornographers American rock bands?",
                "are Kings of Leon American rock bands?",
            ),
        ),
        (
            "are Gin and tonic and Paloma both cocktails?",
            ("are Gin and tonic cocktails?", "are Paloma cocktails?"),
        ),
        ("is Kings of Leon from Nashville?", ("is Kings of Leon from Nashville?",)),
        # Where the second name ends is unknown: the question stays whole.
        ("are both The Strokes and Oasis bands?", ("are both The Strokes and Oasis bands?",)),
    ],
)
def test_a_question_about_two_things_asks_it_of_each(question: str, parts: tuple[str, ...]) -> None:
    contexts = [
        "Kings of Leon is an American rock band. The New Pornographers are Canadian.",
        "A Paloma is made with tequila; a Gin and tonic with gin.",
    ]
    assert conjuncts(question, contexts) == parts


def test_a_yes_no_answer_is_compared_with_the_references_yes_or_no() -> None:
    asked = "Was the tower built in 1889?"
    assert agreeing_replies(asked, "Yes.", "Yes, for the World's Fair.") is True
    assert agreeing_replies(asked, "No, it wasn't.", "Yes") is False
    assert agreeing_replies(asked, "no", "No.") is True
    assert agreeing_replies(asked, "Yes", "Yesterday's records say 1887.") is None
    assert agreeing_replies(asked, "Yes", "No doubt it was 1889.") is None
    assert agreeing_replies(asked, "It was built in 1889.", "Yes") is None
    assert agreeing_replies("When was it built?", "Yes", "Yes") is None


def test_a_number_slot_is_the_number_with_the_words_beside_it() -> None:
    assert tx.number_slots("Returns within 30 days.") == {
        ("30", "<", "within", False),
        ("30", ">", "day", False),
    }
    # Signs say what a number counts; commas go; a year is four digits without a comma.
    assert tx.number_slots("It is £20,000 in 2024.") == {("20000", "<", "£", False)}
    assert ("2019", ">", tx.stem("academic"), True) in tx.number_slots("the 2018–19 academic year")


@pytest.mark.parametrize(
    ("claim", "window", "changed"),
    [
        ("Returns within 60 days.", "Returns within 30 days of delivery.", (("60", "30"),)),
        ("It allows 1,000 requests per minute.", "It allows 100 requests per minute.",
         (("1000", "100"),)),
        ("The rate is 3.9%.", "The rate is 4.9% with a deposit of at least 25%.",
         (("3.9", "4.9"),)),
    ],
)  # fmt: skip
def test_another_number_in_the_claims_slot_is_a_changed_number(
    claim: str, window: str, changed: tuple[tuple[str, str], ...]
) -> None:
    held = frozenset(tx.number_slots(window))
    assert tx.changed_numbers(claim, window, held) == changed


@pytest.mark.parametrize(
    ("claim", "window"),
    [
        # A day of the month is no year.
        ("In November 2013, she voted against it.", "On November 20, 2013 the board voted."),
        # A span of years written short is both years.
        ("It takes place during the 2018–19 academic year.", "Over the 2018-2019 academic year."),
        # Rounded figures: "$6.86" as "$6.90", "4,650 km" as "about 5,000 km".
        ("Earnings were $6.90 a share.", "Earnings were $6.86 a share."),
        ("The river is about 5,000 km long.", "The river is 4,650 km long."),
        # A number beside another word says nothing of the slot.
        ("Take a dose every 6 hours.", "Take 4 grams every six hours."),
    ],
)
def test_a_number_in_another_slot_kind_or_rounded_is_no_change(claim: str, window: str) -> None:
    assert tx.changed_numbers(claim, window, frozenset(tx.number_slots(window))) == ()


def test_a_context_holding_the_claims_number_in_its_slot_keeps_it_unchanged() -> None:
    window = "Full-time employees get 25 days of leave."
    claim = "Part-time staff get 20 days of leave."
    held = frozenset(tx.number_slots(window) | tx.number_slots("Part-time staff get 20 days."))
    assert tx.changed_numbers(claim, window, held) == ()
    # "15 days" elsewhere does not round to the claim's 20.
    other = frozenset(tx.number_slots(window) | tx.number_slots("Interns get 15 days."))
    assert tx.changed_numbers(claim, window, other) == (("20", "25"),)
    assert not tx.rounds_to("15", "20") and tx.rounds_to("4650", "5000")


def test_words_and_names_of_other_alphabets_are_whole() -> None:
    assert tx.words("Reykjavík's Schönbrunn") == ["reykjavík's", "schönbrunn"]
    found = tx.names("It was signed at Schönbrunn by Émile.")
    assert set(found.values()) == {"Schönbrunn", "Émile"}
    assert tx.stem("schönbrunn") in found


@pytest.mark.parametrize(
    ("claim", "window", "missing", "expected"),
    [
        # The window's name beside the missing name's neighbour comes first.
        (
            "It was signed in the Hall of Mirrors at Schönbrunn Palace.",
            "It was signed on 28 June 1919 in the Hall of Mirrors at the Palace of Versailles.",
            ["Schönbrunn"],
            ("Versailles", "June"),
        ),
        # Nothing in its place: the names the claim lacks, alphabetically.
        (
            "Insulin is made by Novo.",
            "In 1921 Banting and Best found it.",
            ["Novo"],
            ("Banting", "Best"),
        ),
        # Names the claim has in the same place are no rivals.
        ("Paris hosts the Louvre.", "Paris hosts the Louvre and Orsay.", [], ("Orsay",)),
    ],
)
def test_rival_names_put_the_name_in_the_missing_ones_place_first(
    claim: str, window: str, missing: list[str], expected: tuple[str, ...]
) -> None:
    assert tx.rival_names(claim, window, missing) == expected
