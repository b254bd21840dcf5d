"""Speculative decoding with a model's own multi-token-prediction (MTP) layers (issues 23 and 25): the layers counted
from the checkpoints' tensors, and what vLLM (--speculative-config method mtp) and llama-server (--spec-type
draft-mtp) add for them."""

from __future__ import annotations

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.formats.weights import NATIVE, weights
from vramcalc.model.families.decoder import mtp
from vramcalc.model.families.decoder.tensors import layer_tensors
from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.presets import preset_spec

LLAMACPP = {"model": "qwen3.5-35b-a3b", "runtime": "llamacpp", "precision": "q4_k_m", "seq": "32768"}
VLLM = {"model": "glm-4.5-air", "runtime": "vllm", "gpus": "4", "gpu": "h100-80gb"}


def _notes(result) -> str:
    return " ".join(ENGLISH.say(n) if not isinstance(n, str) else n for n in result.workload.model.notes)


def _components(values):
    result = estimate(parse_workload(values))
    return {c.key: c.bytes for c in result.components}, result


def test_the_configs_name_their_mtp_layers():
    assert (preset_spec("deepseek-v3").mtp_layers, preset_spec("deepseek-v3").mtp_style) == (1, mtp.NEXTN)
    assert (preset_spec("qwen3.5-27b").mtp_layers, preset_spec("qwen3.5-27b").mtp_style) == (1, mtp.QWEN)
    assert preset_spec("qwen3-32b").mtp_layers == 0


def test_the_mtp_note_is_said_once():  # the preset's own note and the config reader's were both printed
    notes = preset_spec("qwen3.6-35b-a3b").notes
    assert [getattr(n, "key", n) for n in notes].count("model.note.mtp") == 1


def test_deepseek_v3_with_its_mtp_layer_is_the_published_checkpoint():
    """deepseek-ai/DeepSeek-V3's safetensors headers sum to 688,574,839,360 bytes (simpx/model-inspect's README
    lists them: model.layers.61 holds a MoE decoder layer, embed_tokens and shared_head.head [129280, 7168], enorm,
    hnorm and shared_head.norm [7168], eh_proj [7168, 14336] in bf16). The calculator stores no
    e_score_correction_bias (a buffer in transformers, 256 fp32 values in each of the 59 MoE layers' files)."""
    spec = preset_spec("deepseek-v3")
    built = mtp.with_mtp(spec, copies=True)
    assert sum(part.bytes for part in weights(built, NATIVE)) == 688_574_839_360 - 59 * 256 * 4
    names = {t.name.rsplit(".", 2)[-2] if t.name.endswith(".weight") else t.name: t.shape
             for t in layer_tensors(built, 61) if ".nextn." in t.name}
    assert names == {"enorm": (7168,), "hnorm": (7168,), "eh_proj": (7168, 14336), "shared_head_norm": (7168,),
                     "embed_tokens": (129280, 7168), "shared_head_head": (129280, 7168)}
    # the rest of layer 61 is a decoder layer like layer 60, and without the layer nothing changes
    assert [t.shape for t in layer_tensors(built, 61) if ".nextn." not in t.name] == \
        [t.shape for t in layer_tensors(built, 60)]
    assert param_count(mtp.with_mtp(spec, copies=False)) - param_count(spec) == \
        param_count(built) - param_count(spec) - 2 * 129280 * 7168


def test_qwen35_mtp_layer_is_a_full_attention_layer_with_fc_and_three_norms():
    """Qwen3.5's checkpoints: mtp.fc.weight [h, 2h], mtp.pre_fc_norm_embedding, mtp.pre_fc_norm_hidden and mtp.norm
    [h], and mtp.layers.0.* as a full-attention decoder layer (its gated q_proj 2 × heads × head_dim wide)."""
    spec = preset_spec("qwen3.5-27b")
    built = mtp.with_mtp(spec, copies=False)
    h = spec.hidden
    last_full = max(i for i, kind in enumerate(spec.kinds) if kind.value == "full")
    extra = [t.shape for t in layer_tensors(built, spec.layers) if ".nextn." in t.name]
    assert sorted(extra) == sorted([(h,), (h,), (h, 2 * h), (h,)])
    assert [t.shape for t in layer_tensors(built, spec.layers) if ".nextn." not in t.name] == \
        [t.shape for t in layer_tensors(spec, last_full)]
    assert param_count(built) - param_count(spec) == \
        sum(t.numel for t in layer_tensors(spec, last_full)) + 2 * h * h + 3 * h


def test_vllm_loads_the_mtp_layer_sharing_embedding_and_head():
    without, _ = _components(VLLM)
    with_mtp, result = _components({**VLLM, "mtp": "2"})
    spec = preset_spec("glm-4.5-air")
    layer = param_count(mtp.with_mtp(spec, copies=False)) - param_count(spec)
    assert with_mtp["weights"] - without["weights"] == 2 * layer  # bf16, no embed_tokens or head copy
    # its K and V (GLM-4.5-Air: 8 KV heads x 128) for the 8,192 tokens asked, in vLLM's pool
    assert with_mtp["kv_cache"] - without["kv_cache"] == 8 * 128 * 2 * 2 * 8192
    # EagleProposer's buffers: 8,192 rows of hidden states and input embeddings (4,096 wide, bf16), ids, positions,
    # slots, and an arange of max(1,024 + 1, 8,192)
    assert with_mtp["activations"] - without["activations"] == 8192 * (2 * 4096 * 2 + 20) + 4 * 8192
    assert "sharing the model's embedding and head" in _notes(result)


def test_vllm_command_turns_mtp_on():
    from vramcalc.engines.vllm import ENGINE
    from vramcalc.parallel.layout import default_layout

    workload = parse_workload({**VLLM, "mtp": "3"})
    command = " ".join(ENGINE.command(workload, default_layout(workload.model, 4, training=False), "m"))
    assert "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'" in command


def test_deepseek_v32_on_vllm_keeps_its_indexer_and_its_top_k_buffer():
    base = {"model": "deepseek-v3.2", "runtime": "vllm", "gpus": "8", "gpu": "h200-141gb"}
    without, _ = _components(base)
    with_mtp, _ = _components({**base, "mtp": "1"})
    # DeepSeekMultiTokenPredictorLayer's topk_indices_buffer: [8,192, index_topk 2,048] int32, beside the rest
    assert with_mtp["activations"] - without["activations"] == 8192 * (2 * 7168 * 2 + 20 + 4 * 2048) + 4 * 8192
    spec = preset_spec("deepseek-v3.2")
    assert spec.indexer is not None and spec.mla is not None
    # one more MLA layer's latent (576) and indexer key, for the 8,192 tokens
    assert with_mtp["kv_cache"] > without["kv_cache"]


def test_llama_server_loads_the_nextn_layer_and_gives_it_its_own_context():
    without, plain = _components(LLAMACPP)
    with_mtp, result = _components({**LLAMACPP, "mtp": "3"})
    spec = preset_spec("qwen3.5-35b-a3b")
    assert with_mtp["weights"] > without["weights"]
    # the MTP context: one full-attention layer (2 KV heads x 256, K and V) x 32,768 cells in f16 (-ctkd/-ctvd)
    assert with_mtp["kv_cache"] - without["kv_cache"] == spec.kv_width(spec.kinds[-1]) * 2 * 32768
    assert result.runtime["mtp_device_bytes"] > 0
    added = result.runtime["device_bytes"] - plain.runtime["device_bytes"]
    assert added == sum(with_mtp.values()) - sum(without.values())


def test_llama_server_reserves_logits_rows_for_the_drafted_tokens():
    from vramcalc.engines.llamacpp import reserved_outputs

    assert reserved_outputs(parse_workload({**LLAMACPP, "mtp": "3"})) == 4 * (1 + 3)  # 4 auto slots
    assert reserved_outputs(parse_workload(LLAMACPP)) == 4


def test_llama_server_command_and_draft_cache_type():
    from vramcalc.engines.llamacpp import llama_server_command

    workload = parse_workload({**LLAMACPP, "mtp": "2", "draft_kv_precision": "q8_0"})
    command = llama_server_command(workload, "m.gguf", ())
    assert "--spec-type draft-mtp --spec-draft-n-max 2" in command and "-ctkd q8_0 -ctvd q8_0" in command
    f16, _ = _components({**LLAMACPP, "mtp": "2"})
    q8, _ = _components({**LLAMACPP, "mtp": "2", "draft_kv_precision": "q8_0"})
    assert f16["kv_cache"] > q8["kv_cache"]


def test_deepseek_v32_gguf_keeps_the_layer_s_own_embedding_and_head():
    spec = preset_spec("deepseek-v3.2")
    assert spec.model_type in mtp.CHECKPOINT_COPIES
    values = {"model": "deepseek-v3.2", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "b200-180gb"}
    without, _ = _components(values)
    with_mtp, result = _components({**values, "mtp": "1"})
    assert "embed_tokens" in _notes(result)
    # the MoE layer (11.6B) and the two copies (2 x 129,280 x 7,168), at 4 bits or more
    assert with_mtp["weights"] - without["weights"] > (11.6e9 + 2 * 129280 * 7168) / 2


@pytest.mark.parametrize(("values", "says"), [
    ({"model": "glm-4.5-air", "runtime": "transformers"}, "set 0"),
    ({"model": "qwen3-32b", "runtime": "vllm"}, "no multi-token-prediction"),
    ({"model": "deepseek-v3", "runtime": "llamacpp", "precision": "q4_k_m"}, "converter drops"),
    ({**LLAMACPP, "draft_model": "qwen3-0.6b"}, "one kind"),
    ({**LLAMACPP, "llamacpp_program": "llama-completion"}, "llama-server"),
    ({**LLAMACPP, "gpus": "2"}, "one GPU"),
    ({"model": "glm-4.5-air", "runtime": "vllm", "mode": "training"}, "inference"),
    ({**LLAMACPP, "mtp": "17"}, "mtp"),
])
def test_refusals_name_the_key(values, says):
    with pytest.raises(ValidationError) as caught:
        estimate(parse_workload({"mtp": "1", **values}))
    assert caught.value.field == "mtp" and says in str(caught.value)
