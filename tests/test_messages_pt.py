"""The pt-BR catalogue (messages_pt.PT) against the English one (messages.EN): the same keys, the same
placeholders and format specs, every template formats, and nothing left untranslated by accident."""

from __future__ import annotations

import string

import pytest

from vramcalc.render.i18n.en import EN
from vramcalc.render.i18n.pt import PT

# Values that are the same in both languages: names, code, units and loanwords Brazilian ML writing keeps.
SAME_IN_BOTH = frozenset({
    "Logits", "GPU", "CSV", "JSON", "English", "Português", "Hardware", "Total", "VRAM", "FSDP", "Adam", "AdamW", "SGD",
    "Adafactor", "Lion", "Framework", "Hugging Face Trainer / TRL", "Unsloth", "torchtune", "LitGPT", "Axolotl",
    "HBM", "GDDR", "fp32", "bf16", "fp16", "eager", "flash", "Eager", "Flash / SDPA",
    "llama-server", "foreach", "fused", "for-loop", "full-shard", "shard-grad-op", "hybrid-shard",
    "iogpu.wired_limit_mb (MiB)", "GGUF (llama.cpp, Ollama, LM Studio)", "llama.cpp / Ollama / LM Studio",
    "Hugging Face transformers (generate)", "--cache-type-v.", " · checkpoint: {format}",
    "{value:,} tokens", "{batch} × ({layers}) × {bits} bits ({precision})", "MQA, head_dim {head_dim}",
    "GGUF {name} (llama.cpp)",
    "FP8", "FP32", "{value} tokens/s", "{value} s", "{value} ms", "{value} h", "US${value}",  # units
})

FORMATTER = string.Formatter()


def fields(template: str) -> set[tuple[str, str, str | None]]:
    """Every replacement field as (name, format spec, conversion); a plural's words ({n:one|many}) are the
    language's own, so only that it is a plural counts."""
    return {(name, "plural" if "|" in (spec or "") else spec or "", conversion)
            for _, name, spec, conversion in FORMATTER.parse(template) if name is not None}


def dummy(spec: str) -> object:
    """A value every spec in the catalogues accepts: a number when the spec is numeric, else text."""
    return 1234.5 if (spec and spec[-1:] in "%,dfgeEn") or "," in spec else "x"


def test_same_keys():
    assert set(PT) - set(EN) == set(), "keys in PT only"
    assert set(EN) - set(PT) == set(), "keys in EN missing from PT"


@pytest.mark.parametrize("key", sorted(EN))
def test_same_placeholders(key):
    assert fields(PT[key]) == fields(EN[key])


@pytest.mark.parametrize("key", sorted(EN))
def test_same_edges(key):
    """Fragments are concatenated ('weights.lora', 'answer.at_least'): keep their leading and trailing spaces."""
    en, pt = EN[key], PT[key]
    assert en[:len(en) - len(en.lstrip())] == pt[:len(pt) - len(pt.lstrip())]
    assert en[len(en.rstrip()):] == pt[len(pt.rstrip()):]


def literal_letters(template: str) -> str:
    return "".join(char for literal, *_ in FORMATTER.parse(template) for char in literal if char.isalpha())


@pytest.mark.parametrize("key", sorted(EN))
def test_translated(key):
    if PT[key] == EN[key]:
        assert PT[key] in SAME_IN_BOTH or not literal_letters(PT[key]), f"untranslated: {PT[key]!r}"


def test_allow_list_is_used():
    stale = SAME_IN_BOTH - {value for key, value in PT.items() if value == EN[key]}
    assert not stale, f"allowed but no longer the same in both: {stale}"


@pytest.mark.parametrize("key", sorted(EN))
def test_formats(key):
    from vramcalc.render.messages import Words

    values: dict[str, object] = {}
    for name, spec, _ in sorted(fields(PT[key]), key=lambda field: field[1] == "plural"):
        values.setdefault(name, dummy(spec))  # a count also written with a numeric spec stays a number
    for language in ("pt", "en"):
        Words(language).message(key, **values)


@pytest.mark.parametrize("count, en, pt", [(1, "1 sequence at once", "1 sequência ao mesmo tempo"),
                                           (2, "2 sequences at once", "2 sequências ao mesmo tempo"),
                                           ("1,000", "1,000 sequences at once", "1.000 sequências ao mesmo tempo")])
def test_a_count_of_one_is_singular(count, en, pt):
    from vramcalc.render.messages import Words

    template = "{concurrency} {concurrency:sequence|sequences} at once"
    assert en in Words("en").message("vllm.kv_state", batch=1, bytes="", where="", pool="", concurrency=count)
    assert pt in Words("pt").message("vllm.kv_state", batch=1, bytes="", where="", pool="", concurrency=count)
    assert template in EN["vllm.kv_state"]


def test_portuguese_numbers_use_a_decimal_comma_and_names_stay():
    from vramcalc.render.messages import ENGLISH, Words

    pt = Words("pt")
    assert pt.gib(16_060_522_496) == "14,96 GiB"
    assert pt.count(8_030_261_248) == "8,03B"
    text = pt.message("answer.gpus", value=1234, gpu="Llama 3.1 8B")
    assert "1.234" in text and "Llama 3.1 8B" in text  # a name keeps its dot
    assert pt.message("change.seq", value=32_945) == "um contexto de 32.945 tokens"
    assert pt.message("verdict.fits", where="uma RTX 4090", used=pt.gib(2**30), usable="23.64 GiB",
                      share="76%") == "Cabe em uma RTX 4090: 1,00 GiB de 23,64 GiB (76% em uso)."
    assert ENGLISH.gib(16_060_522_496) == "14.96 GiB"  # the other language is untouched


@pytest.mark.parametrize(("values", "said"), [
    ({"batch": "0"}, "batch: recebido '0'; esperado um número inteiro de 1 a 1.000.000"),
    ({"mixed_precision": "maybe"}, "mixed_precision: recebido 'maybe'; esperado 1 ou 0"),
    ({"gpu_memory_utilization": "2"}, "gpu_memory_utilization: recebido '2'; esperado um número acima de 0 até 1"),
    ({"mode": "x"}, "mode: recebido 'x'; esperado um de: inference, training, embedding, speech"),
    ({"runtime": "ollama", "ollama_version": "x"},
     "ollama_version: recebido 'x'; uma versão como 0.15.5, como `ollama -v` a mostra"),
    ({"bnb_version": "x"}, "bnb_version: recebido 'x'; uma versão como 0.41.1"),
    # the free-text fields' own formats and the link's choices (before: English on the Portuguese page)
    ({"mode": "training", "lora_rank": "8", "lora_targets": "q,x"}, ("lora_targets: recebido 'q,x'; esperado "
     "all-linear, all-linear,head ou um subconjunto separado por vírgulas de q,k,v,o,gate,up,down,head")),
    ({"runtime": "llamacpp", "precision": "q4_k_m", "override_tensor": "exps"},
     "override_tensor: recebido 'exps'; esperado PADRÃO=DISPOSITIVO, por exemplo blk\\.[0-9]+\\.ffn_.*_exps=CPU"),
    ({"runtime": "llamacpp", "precision": "q4_k_m", "tensor_split": "0,0"},
     "tensor_split: recebido '0,0'; ao menos uma proporção acima de 0 (todas zero: deixe vazio)"),
    ({"runtime": "llamacpp", "precision": "q4_k_m", "tensor_split": ",".join(["1"] * 17)},
     f"tensor_split: recebido '{','.join(['1'] * 17)}'; no máximo 16 proporções, uma por GPU"),
    ({"gpu": "4090x"}, ("gpu: recebido '4090x'; uma GPU ou um Mac da lista (por exemplo rtx-4090, h100-80gb, "
     "apple-m4-max-128gb), ou a memória de uma placa como 24gb (de 1 a 1024 GB)")),
    ({"runtime": "vllm", "draft_model": "qwen-tiny"},
     "draft_model: recebido 'qwen-tiny'; o nome de um preset (um modelo pequeno da mesma família), ou vazio"),
    ({"runtime": "llamacpp", "precision": "q4_k_m", "draft_model": "qwen3-0.6b", "draft_precision": "awq-int4"},
     "draft_precision: recebido 'awq-int4'; um tipo GGUF (q8_0, q4_k_m, f16, ...)"),
])
def test_a_value_a_field_cannot_take_is_said_in_portuguese(values, said):
    """The page's field errors and the link's notices: core/option.py's reasons in the page's language (before,
    English on the Portuguese page); a reason of the engine's own stays whole, in English, and English is unchanged."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.core.errors import ValidationError
    from vramcalc.render.messages import ENGLISH, Words

    with pytest.raises(ValidationError) as refused:
        parse_workload({**DEFAULTS, **values})
    assert Words("pt").problem(refused.value) == said
    assert ENGLISH.problem(refused.value) == str(refused.value)
    with pytest.raises(ValidationError) as own:
        parse_workload({**DEFAULTS, "mode": "training", "objective": "grpo"})
    assert Words("pt").problem(own.value) == str(own.value)


def test_a_pipeline_the_link_names_wrongly_is_said_in_portuguese():
    from vramcalc.inputs.link import decode
    from vramcalc.render.messages import Words

    said = [Words("pt").say(notice) for notice in decode("family=diffusion&pipeline=abc").notices]
    assert said and said[0].startswith("Ignorado do link: pipeline: recebido 'abc'; esperado um de: flux.1-dev, ")
