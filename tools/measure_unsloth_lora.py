"""Measure what Unsloth's own LoRA kernels hold in a training step, rebuilt in plain PyTorch on the CPU (issue 28).

A developer tool, not run by CI. Unsloth's kernels are Triton (GPU only), so this tool rebuilds, from
unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d and
unslothai/unsloth-zoo@ce232d6cef9cb8cd34cd3727906131622177436b, the autograd Functions of a Llama layer under
`FastLanguageModel.get_peft_model(use_gradient_checkpointing="unsloth")`, with exactly the tensors each saves for
backward and the buffers each allocates:

- `LoRA_QKV`, `LoRA_W`, `LoRA_MLP` (unsloth/kernels/fast_lora.py) and `matmul_lora` (kernels/utils.py:1128): line by
  line, torch ops as in the source (their matmuls and `addmm_` are torch already);
- the Triton kernels, `swiglu_fg_kernel` (kernels/swiglu.py:50, allocates h), `swiglu_DWf_DW_dfg_kernel`
  (swiglu.py:112, writes h, df and de into DW, e and g: in place), `Fast_RMS_Layernorm` (kernels/rms_layernorm.py:162:
  allocates Y and an fp32 r per row, saves X, W, r; its backward writes dX into dY, in place) and
  `Fast_RoPE_Embedding_QK` (kernels/rope_embedding.py:283: clones Q and K when not contiguous, rotates in place),
  each replaced by torch ops run with the tracker paused that write into the outputs the kernel allocates;
- flash-attn 2's `flash_attn_func` (the backend unsloth/utils/attention_dispatch.py `select_attention_backend` picks
  first): saves q, k, v, out and the fp32 log-sum-exp; its backward (csrc/flash_attn/flash_api.cpp `mha_bwd`)
  allocates dq, dk, dv, softmax_d (fp32, a per token), dq_accum (fp32, a·d per token) and, when kv < a, dk_expanded
  and dv_expanded (a·d each), all beside each other;
- unsloth_zoo/gradient_checkpointing.py `UnslothCheckpointFunction`: every layer but the last copies its input to a
  host buffer (not counted: not GPU memory) and saves nothing; its backward copies it back into one GPU buffer
  (counted, allocated once) and recomputes the layer with grad;
- unsloth_zoo/fused_losses/cross_entropy_loss.py `UnslothFusedLoss`: the gradient of the hidden states
  (`grad_inputs`, the hidden states' dtype) computed in the forward, chunk by chunk, and saved for the backward.

The base weights are frozen bf16 (4-bit is not needed: a frozen weight's dequantised copy is weight-sized, not per
token); the adapters fp32 as Unsloth keeps them, cast to bf16 in matmul_lora. Everything runs in bf16.

Counted with tools/measure_peak.py's PeakTracker (every storage, once, from its allocation to its release). For each
shape: `recompute_saved`, the bytes a middle layer's recompute leaves live when its backward starts (its output
included), and `backward_peak`, the most live during that layer's checkpoint backward above what was live when it
began (the recompute and the backward's buffers); and `step_backward_peak`, the most live in the whole step's
backward above what was live before its forward (the model, the ids). All per token, from 512 and 1,024 tokens.

With --legacy, Unsloth 2025.1.5 (unslothai/unsloth@e3162dc5, the README's context-length tables) with unsloth_zoo
2025.1.3 instead, where it differs: `matmul_lora` adds the LoRA term as a new tensor of the output's size
(kernels/utils.py:418 `out += (X @ A) @ (s * B)`, replaced by `addmm_` on 2025-03-01), the LoRA backwards add each
term of dX as a new tensor (`dX += ...`), RoPE rotates Q and K in place (no clone), and every layer, the last too, is
checkpointed by `Unsloth_Offloaded_Gradient_Checkpointer` (input to the host, back into a new GPU tensor; replaced on
2025-03-04). --attention xformers: 2025.1.5 without flash-attn installed (its ampere extras), where keys and values
are copied to every head before xformers (models/llama.py:411-420); xformers' kernel is counted as flash's.

Usage: /work/mvenv/bin/python tools/measure_unsloth_lora.py [--legacy [--attention xformers]]
           [--out tests/golden/measured_unsloth_lora.json]
About three minutes on two CPU cores.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_peak as P

DTYPE = torch.bfloat16
UNSLOTH = "unslothai/unsloth@015bdef0d94a241bcd94eec7a405b1700632180d"
ZOO = "unslothai/unsloth-zoo@ce232d6cef9cb8cd34cd3727906131622177436b"
LEGACY_UNSLOTH = "unslothai/unsloth@e3162dc5bf88bf4c2b598c74cbcaba0706c4067b"  # 2025.1.5, the README tables
LEGACY_ZOO = "unslothai/unsloth-zoo@36ff5fc3cfe69e610c89f8e49718d929a10ff6ed"  # 2025.1.3, the newest on 2025-01-14


class Tracker(P.PeakTracker):
    """PeakTracker with a pause (for the Triton kernels' arithmetic, which allocates nothing on a GPU), host storages
    left out, and a window: the most live since `open_window`."""

    def __init__(self):
        super().__init__()
        self.paused = 0
        self.window = None

    def track(self, tensor):
        if self.paused:
            return
        super().track(tensor)
        if self.window is not None and self.live > self.window:
            self.window = self.live

    @contextlib.contextmanager
    def pause(self):
        self.paused += 1
        try:
            yield
        finally:
            self.paused -= 1


TRACKER: Tracker | None = None


def kernel():
    """The arithmetic of a Triton kernel: no allocation of its own."""
    return TRACKER.pause() if TRACKER is not None else contextlib.nullcontext()


# ---------------------------------------------------------------- unsloth/kernels/utils.py


def matmul_lora(X, W, A, B, s, out=None):
    """kernels/utils.py:1128. W frozen (bf16 here: fast_dequantize's output for a 4-bit one)."""
    dtype = X.dtype
    reshape = X.dim() == 3
    if reshape:
        batch, seq_len, _ = X.shape
        X = X.view(-1, X.shape[-1])
    out = torch.matmul(X, W.t(), out=out)
    if A is not None:
        A, B = A.t(), B.t()
        if LEGACY:  # e3162dc5 kernels/utils.py:418: the LoRA term is a new tensor of out's size, then added
            out += (X @ A.to(dtype)) @ (s * B.to(dtype))
        else:
            XA = torch.matmul(X, A.to(dtype))
            out.addmm_(XA, B.to(dtype), alpha=s)
    return out.view(batch, seq_len, -1) if reshape else out


# ---------------------------------------------------------------- Triton kernels, as the outputs they allocate


def swiglu_fg_kernel(e, g):
    """swiglu.py:50: h = silu(e) * g, a new tensor."""
    h = torch.empty(e.shape, dtype=e.dtype, device=e.device)
    with kernel():
        ef = e.float()
        h.copy_((ef * torch.sigmoid(ef)).to(g.dtype) * g)
    return h


def swiglu_DWf_DW_dfg_kernel(DW, e, g):
    """swiglu.py:112: h, df, de written into DW, e, g (in place)."""
    with kernel():
        ef = e.float()
        se = torch.sigmoid(ef)
        f = (se * ef).to(DW.dtype)
        h = f * g
        df = DW * f
        dg = DW * g
        de = (dg.float() * se * (1.0 + ef * (1.0 - se))).to(DW.dtype)
        DW.copy_(h)
        e.copy_(df)
        g.copy_(de)
    return DW, e, g


class Fast_RMS_Layernorm(torch.autograd.Function):
    """rms_layernorm.py:162 (Llama, not Gemma): Y and an fp32 r per row; saves X, W, r; dX written into dY."""

    @staticmethod
    def forward(ctx, X, W, eps):
        shape = X.shape
        X = X.reshape(-1, shape[-1])
        Y = torch.empty(X.shape, dtype=X.dtype, device=X.device)
        r = torch.empty(X.shape[0], dtype=torch.float32, device=X.device)
        with kernel():
            xf = X.float()
            r.copy_(torch.rsqrt(xf.pow(2).mean(-1) + eps))
            Y.copy_((xf * r[:, None]).to(X.dtype) * W)
        ctx.eps = eps
        ctx.save_for_backward(X, W, r)
        return Y.view(*shape)

    @staticmethod
    def backward(ctx, dY):
        shape = dY.shape
        X, W, r = ctx.saved_tensors
        dY = dY.reshape(-1, shape[-1])
        dX = dY  # rms_layernorm.py:218, not Gemma: in place
        with kernel():
            xf, dyw = X.float(), dY.float() * W.float()
            normed = xf * r[:, None]
            dX.copy_((r[:, None] * (dyw - normed * (dyw * normed).mean(-1, keepdim=True))).to(dX.dtype))
        return dX.view(*shape), None, None


def rope_rotate(x, cos, sin, sign):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    rotated = torch.cat((-x2, x1), dim=-1)
    return x * cos + sign * rotated * sin


class Fast_RoPE_Embedding_QK(torch.autograd.Function):
    """rope_embedding.py:283: Q and K cloned when not contiguous (they are: transposed views), rotated in place;
    the backward likewise on dQ and dK. Keeps cos and sin (the model's shared tables)."""

    @staticmethod
    def forward(ctx, Q, K, cos, sin):
        Q_out = Q.clone() if not Q.is_contiguous() else Q
        K_out = K.clone() if not K.is_contiguous() else K
        with kernel():
            Q_out.copy_(rope_rotate(Q_out, cos, sin, 1))
            K_out.copy_(rope_rotate(K_out, cos, sin, 1))
        ctx.cos, ctx.sin = cos, sin
        return Q_out, K_out

    @staticmethod
    def backward(ctx, dQ, dK):
        dQ_out = dQ.clone() if not dQ.is_contiguous() else dQ
        dK_out = dK.clone() if not dK.is_contiguous() else dK
        with kernel():
            dQ_out.copy_(rope_rotate(dQ_out, ctx.cos, -ctx.sin, 1))
            dK_out.copy_(rope_rotate(dK_out, ctx.cos, -ctx.sin, 1))
        return dQ_out, dK_out, None, None


def round_up(x, m):
    return -(-x // m) * m


class FlashAttn(torch.autograd.Function):
    """flash-attn 2 `flash_attn_func(q, k, v, causal=True)`, q (b, s, a, d), k and v (b, s, kv, d): out and the fp32
    log-sum-exp allocated and saved with q, k, v; the backward's buffers as `mha_bwd` allocates them."""

    @staticmethod
    def forward(ctx, q, k, v):
        b, s, a, d = q.shape
        out = torch.empty((b, s, a, d), dtype=q.dtype, device=q.device)
        lse = torch.empty((b, a, s), dtype=torch.float32, device=q.device)
        with kernel():
            o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               is_causal=True, enable_gqa=True)
            out.copy_(o.transpose(1, 2))
            lse.zero_()
        ctx.save_for_backward(q, k, v, out, lse)
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, _out, _lse = ctx.saved_tensors
        b, s, a, d = q.shape
        kv = k.shape[2]
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)  # flash_attn_interface.py
        s_r, d_r = round_up(s, 128), round_up(d, 32) if d <= 192 else 256  # flash_api.cpp mha_bwd
        softmax_d = torch.empty((b, a, s_r), dtype=torch.float32, device=q.device)
        dq_accum = torch.empty((b, s_r, a, d_r), dtype=torch.float32, device=q.device)
        expanded = ((torch.empty((b, s, a, d), dtype=q.dtype, device=q.device),
                     torch.empty((b, s, a, d), dtype=q.dtype, device=q.device)) if kv != a else ())
        with kernel(), torch.enable_grad():
            qq, kk, vv = (t.detach().transpose(1, 2).requires_grad_() for t in (q, k, v))
            o = F.scaled_dot_product_attention(qq, kk, vv, is_causal=True, enable_gqa=True)
            gq, gk, gv = torch.autograd.grad(o, (qq, kk, vv), dout.transpose(1, 2))
            dq.copy_(gq.transpose(1, 2))
            dk.copy_(gk.transpose(1, 2))
            dv.copy_(gv.transpose(1, 2))
        del softmax_d, dq_accum, expanded
        return dq, dk, dv


# ---------------------------------------------------------------- unsloth/kernels/fast_lora.py, as written


class LoRA_MLP(torch.autograd.Function):
    """fast_lora.py:28."""

    @staticmethod
    def forward(ctx, X, gateW, gateA, gateB, gateS, upW, upA, upB, upS, downW, downA, downB, downS, inplace=True):
        e = matmul_lora(X, gateW, gateA, gateB, gateS)  # :93
        g = matmul_lora(X, upW, upA, upB, upS)  # :94
        h = swiglu_fg_kernel(e, g)  # :95
        i = matmul_lora(h, downW, downA, downB, downS)  # :96
        ctx.custom_saved_tensors = (gateW, gateS, upW, upS, downW, downS)
        ctx.save_for_backward(gateA, gateB, upA, upB, downA, downB, X, e, g)  # :110
        ctx.inplace = inplace
        return i

    @staticmethod
    def backward(ctx, dY):
        gateW, gateS, upW, upS, downW, downS = ctx.custom_saved_tensors
        gateA, gateB, upA, upB, downA, downB, X, e, g = ctx.saved_tensors
        batch, seq_len, hd = X.shape
        dY = dY.view(-1, dY.shape[-1])
        X = X.view(-1, X.shape[-1])
        e = e.view(-1, e.shape[-1])
        g = g.view(-1, g.shape[-1])
        dtype = X.dtype
        gateA, gateB, upA, upB, downA, downB = (t.to(dtype).t() for t in (gateA, gateB, upA, upB, downA, downB))
        DW = matmul_lora(dY, downW.t(), downB, downA, downS)  # :156
        DW, e, g = swiglu_DWf_DW_dfg_kernel(DW, e, g)  # :157
        h, df, de = DW, e, g
        if LEGACY:  # e3162dc5 fast_lora.py:115-146: each term added to dX is a new tensor first
            d_downA, d_downB = h.t() @ (dY @ downB.t()) * downS, (downA.t() @ h.t()) @ dY * downS
            d_upA, d_upB = X.t() @ (df @ upB.t()) * upS, (upA.t() @ X.t()) @ df * upS
            d_gateA, d_gateB = X.t() @ (de @ gateB.t()) * gateS, (gateA.t() @ X.t()) @ de * gateS
            dX = torch.matmul(df, upW, out=X if ctx.inplace else None)  # :136
            dX += df @ upB.t() @ (upS * upA.t())
            dX += de @ gateW  # :141
            dX += de @ gateB.t() @ (gateS * gateA.t())
            return (dX.view(batch, seq_len, hd), None, d_gateA.t(), d_gateB.t(), None, None, d_upA.t(), d_upB.t(),
                    None, None, d_downA.t(), d_downB.t(), None, None)
        d_downA, d_downB = torch.empty_like(downA), torch.empty_like(downB)
        d_gateA, d_gateB = torch.empty_like(gateA), torch.empty_like(gateB)
        d_upA, d_upB = torch.empty_like(upA), torch.empty_like(upB)
        d_downA.addmm_(h.t(), dY @ downB.t(), alpha=downS, beta=0)  # :172
        d_downB.addmm_(downA.t() @ h.t(), dY, alpha=downS, beta=0)
        d_upA.addmm_(X.t(), df @ upB.t(), alpha=upS, beta=0)  # :180
        d_upB.addmm_(upA.t() @ X.t(), df, alpha=upS, beta=0)
        d_gateA.addmm_(X.t(), de @ gateB.t(), alpha=gateS, beta=0)  # :188
        d_gateB.addmm_(gateA.t() @ X.t(), de, alpha=gateS, beta=0)
        dX = torch.matmul(df, upW, out=X if ctx.inplace else None)  # :194, into X
        dX.addmm_(df @ upB.t(), upA.t(), alpha=upS)
        dX.addmm_(de, gateW)  # :201
        dX.addmm_(de @ gateB.t(), gateA.t(), alpha=gateS)
        return (dX.view(batch, seq_len, hd), None, d_gateA.t(), d_gateB.t(), None, None, d_upA.t(), d_upB.t(),
                None, None, d_downA.t(), d_downB.t(), None, None)


class LoRA_QKV(torch.autograd.Function):
    """fast_lora.py:335."""

    @staticmethod
    def forward(ctx, X, QW, QA, QB, QS, KW, KA, KB, KS, VW, VA, VB, VS, inplace=True):
        orig_shape = X.shape
        Xm = X.view(-1, X.shape[-1])
        Q = matmul_lora(Xm, QW, QA, QB, QS)
        K = matmul_lora(Xm, KW, KA, KB, KS)
        V = matmul_lora(Xm, VW, VA, VB, VS)
        Q, K, V = (t.view(orig_shape[0], orig_shape[1], -1) for t in (Q, K, V))
        ctx.custom_saved_tensors = (QW, QS, KW, KS, VW, VS)
        ctx.save_for_backward(X, QA, QB, KA, KB, VA, VB)  # :418
        ctx.inplace = inplace
        return Q, K, V

    @staticmethod
    def backward(ctx, dQ, dK, dV):
        QW, QS, KW, KS, VW, VS = ctx.custom_saved_tensors
        X, QA, QB, KA, KB, VA, VB = ctx.saved_tensors
        batch, seq_len, hd = X.shape
        dQ = dQ.view(-1, dQ.shape[-1])
        dK = dK.reshape(-1, dK.shape[-1])
        dV = dV.view(-1, dV.shape[-1])
        X = X.view(-1, X.shape[-1])
        dtype = X.dtype
        QA, QB, KA, KB, VA, VB = (t.to(dtype).t() for t in (QA, QB, KA, KB, VA, VB))
        if LEGACY:  # e3162dc5 fast_lora.py:270-310
            d_QA, d_QB = X.t() @ (dQ @ QB.t()) * QS, (QA.t() @ X.t()) @ dQ * QS
            d_KA, d_KB = X.t() @ (dK @ KB.t()) * KS, (KA.t() @ X.t()) @ dK * KS
            d_VA, d_VB = X.t() @ (dV @ VB.t()) * VS, (VA.t() @ X.t()) @ dV * VS
            dX = torch.matmul(dQ, QW, out=X if ctx.inplace else None)  # :295
            dX += dQ @ QB.t() @ (QS * QA.t())
            dX += dK @ KW
            dX += dK @ KB.t() @ (KS * KA.t())
            dX += dV @ VW
            dX += dV @ VB.t() @ (VS * VA.t())
            return (dX.view(batch, seq_len, hd), None, d_QA.t(), d_QB.t(), None, None, d_KA.t(), d_KB.t(), None,
                    None, d_VA.t(), d_VB.t(), None, None)
        d_QA, d_QB = torch.empty_like(QA), torch.empty_like(QB)
        d_KA, d_KB = torch.empty_like(KA), torch.empty_like(KB)
        d_VA, d_VB = torch.empty_like(VA), torch.empty_like(VB)
        d_QA.addmm_(X.t(), dQ @ QB.t(), alpha=QS, beta=0)
        d_QB.addmm_(QA.t() @ X.t(), dQ, alpha=QS, beta=0)
        d_KA.addmm_(X.t(), dK @ KB.t(), alpha=KS, beta=0)
        d_KB.addmm_(KA.t() @ X.t(), dK, alpha=KS, beta=0)
        d_VA.addmm_(X.t(), dV @ VB.t(), alpha=VS, beta=0)
        d_VB.addmm_(VA.t() @ X.t(), dV, alpha=VS, beta=0)
        dX = torch.matmul(dQ, QW, out=X if ctx.inplace else None)  # :498, into X
        dX.addmm_(dQ @ QB.t(), QA.t(), alpha=QS)
        dX.addmm_(dK, KW)
        dX.addmm_(dK @ KB.t(), KA.t(), alpha=KS)
        dX.addmm_(dV, VW)
        dX.addmm_(dV @ VB.t(), VA.t(), alpha=VS)
        return (dX.view(batch, seq_len, hd), None, d_QA.t(), d_QB.t(), None, None, d_KA.t(), d_KB.t(), None,
                None, d_VA.t(), d_VB.t(), None, None)


class LoRA_W(torch.autograd.Function):
    """fast_lora.py:574."""

    @staticmethod
    def forward(ctx, X, W, A, B, S):
        XW = matmul_lora(X, W, A, B, S)
        ctx.custom_saved_tensors = (W, S)
        ctx.save_for_backward(A, B, X)  # :612
        return XW

    @staticmethod
    def backward(ctx, dY):
        W, S = ctx.custom_saved_tensors
        A, B, X = ctx.saved_tensors
        batch, seq_len, hd = X.shape
        dY = dY.reshape(-1, dY.shape[-1])
        X = X.reshape(-1, X.shape[-1])
        A, B = A.to(X.dtype).t(), B.to(X.dtype).t()
        if LEGACY:  # e3162dc5 fast_lora.py:389-399
            d_A, d_B = X.t() @ (dY @ B.t()) * S, (A.t() @ X.t()) @ dY * S
            dX = dY @ W  # :397
            dX += dY @ B.t() @ (S * A.t())
            return dX.view(batch, seq_len, hd), None, d_A.t(), d_B.t(), None
        d_A, d_B = torch.empty_like(A), torch.empty_like(B)
        d_A.addmm_(X.t(), dY @ B.t(), alpha=S, beta=0)
        d_B.addmm_(A.t() @ X.t(), dY, alpha=S, beta=0)
        dX = dY @ W  # :644, a new tensor
        dX.addmm_(dY @ B.t(), A.t(), alpha=S)
        return dX.view(batch, seq_len, hd), None, d_A.t(), d_B.t(), None


# ---------------------------------------------------------------- the model


class Lora(torch.nn.Module):
    def __init__(self, out_features, in_features, rank):
        super().__init__()
        self.W = torch.nn.Parameter(torch.randn(out_features, in_features, dtype=DTYPE) / math.sqrt(in_features),
                                    requires_grad=False)
        self.A = torch.nn.Parameter(torch.randn(rank, in_features) / math.sqrt(in_features))  # fp32, as Unsloth
        self.B = torch.nn.Parameter(torch.randn(out_features, rank) * 0.01)
        self.s = 2.0

    def parts(self):
        return self.W, self.A, self.B, self.s


class Layer(torch.nn.Module):
    """models/llama.py `LlamaDecoderLayer_fast_forward` and `LlamaAttention_fast_forward` (training branch)."""

    def __init__(self, h, inter, a, kv, rank):
        super().__init__()
        self.a, self.kv, self.d = a, kv, h // a
        self.norm1 = torch.nn.Parameter(torch.ones(h, dtype=DTYPE), requires_grad=False)
        self.norm2 = torch.nn.Parameter(torch.ones(h, dtype=DTYPE), requires_grad=False)
        self.q, self.k, self.v = Lora(a * self.d, h, rank), Lora(kv * self.d, h, rank), Lora(kv * self.d, h, rank)
        self.o = Lora(h, a * self.d, rank)
        self.gate, self.up, self.down = Lora(inter, h, rank), Lora(inter, h, rank), Lora(h, inter, rank)

    def forward(self, X, cos, sin):
        b, s, _ = X.shape
        residual = X
        Y = Fast_RMS_Layernorm.apply(X, self.norm1, 1e-5)
        Q, K, V = LoRA_QKV.apply(Y, *self.q.parts(), *self.k.parts(), *self.v.parts())
        Q = Q.view(b, s, self.a, self.d).transpose(1, 2)
        K = K.view(b, s, self.kv, self.d).transpose(1, 2)
        V = V.view(b, s, self.kv, self.d).transpose(1, 2)
        if LEGACY:  # e3162dc5 rope_embedding.py:153: rotated in place on the contiguous (b, s, heads, d) layout
            Q, K = Fast_RoPE_Embedding_QK.apply(Q.transpose(1, 2), K.transpose(1, 2), cos[:, None], sin[:, None])
            Q, K = Q.transpose(1, 2), K.transpose(1, 2)
        else:
            Q, K = Fast_RoPE_Embedding_QK.apply(Q, K, cos, sin)
        Q, K, V = Q.transpose(1, 2), K.transpose(1, 2), V.transpose(1, 2)
        if ATTENTION == "xformers" and self.kv != self.a:  # e3162dc5 llama.py:411-420: keys and values copied to
            g = self.a // self.kv  # every head (reshape of an expand) before xformers' memory-efficient attention
            K = K.view(b, s, self.kv, 1, self.d).expand(b, s, self.kv, g, self.d).reshape(b, s, self.a, self.d)
            V = V.view(b, s, self.kv, 1, self.d).expand(b, s, self.kv, g, self.d).reshape(b, s, self.a, self.d)
        A = FlashAttn.apply(Q, K, V)  # attention_dispatch FLASH_DENSE (xformers: the same tensors saved, see above)
        attn = LoRA_W.apply(A.reshape(b, s, self.a * self.d), *self.o.parts())
        X = residual + attn
        del attn  # `hidden_states = residual + hidden_states` rebinds the attention's output (llama.py:847)
        residual = X
        Y = Fast_RMS_Layernorm.apply(X, self.norm2, 1e-5)
        M = LoRA_MLP.apply(Y, *self.gate.parts(), *self.up.parts(), *self.down.parts())
        return residual + M


class Offload:
    """unsloth_zoo gradient_checkpointing.py's host buffers (left out of the count) and one GPU buffer (counted)."""

    def __init__(self):
        self.host = {}
        self.gpu = None


class UnslothCheckpoint(torch.autograd.Function):
    """gradient_checkpointing.py:705 `UnslothCheckpointFunction`, one layer, its input offloaded unless `last`."""

    @staticmethod
    def forward(ctx, layer, index, last, store, X, cos, sin):
        ctx.layer, ctx.index, ctx.last, ctx.store, ctx.cos, ctx.sin = layer, index, last, store, cos, sin
        if last:
            ctx.save_for_backward(X)
        else:
            with kernel():  # pinned host memory
                store.host[index] = X.detach().to("cpu", copy=True)
            if store.gpu is None or store.gpu.numel() < X.numel():
                store.gpu = torch.empty(X.numel(), dtype=X.dtype)  # GPU_BUFFERS, allocated once
            ctx.shape = X.shape
        with torch.no_grad():
            return layer(X, cos, sin)

    @staticmethod
    def backward(ctx, dY):
        if ctx.last:
            (x,) = ctx.saved_tensors
            x = x.detach()
        else:
            buffer = ctx.store.gpu[:math.prod(ctx.shape)].view(ctx.shape)
            with kernel():
                buffer.copy_(ctx.store.host[ctx.index])  # copy back, into the GPU buffer
            x = buffer.detach()
        return None, None, None, None, recompute_backward(ctx, x, dY), None, None


def recompute_backward(ctx, x, dY):
    """The checkpoint's backward once its input is back on the GPU: the layer recomputed with grad, then its backward;
    the measured layer's window opened here."""
    x.requires_grad_(True)
    measuring = ctx.index == MEASURED_LAYER
    if measuring:
        start = TRACKER.live
        TRACKER.window = start
    with torch.enable_grad():
        out = ctx.layer(x, ctx.cos, ctx.sin)
    if measuring:
        WINDOW["recompute_saved"] = TRACKER.live - start
    torch.autograd.backward(out, dY)
    if measuring:
        WINDOW["backward_peak"] = TRACKER.window - start
        TRACKER.window = None
    return x.grad


class OffloadedCheckpointer(torch.autograd.Function):
    """unsloth_zoo@36ff5fc3 (2025.1.3) gradient_checkpointing.py:136 `Unsloth_Offloaded_Gradient_Checkpointer`, which
    Unsloth 2025.1.5 runs for every layer (e3162dc5 models/llama.py:817): the input copied to the host (:145, not
    counted), nothing kept on the GPU; its backward copies it back into a new GPU tensor (:158) and recomputes."""

    @staticmethod
    def forward(ctx, layer, index, store, X, cos, sin):
        ctx.layer, ctx.index, ctx.store, ctx.cos, ctx.sin = layer, index, store, cos, sin
        with kernel():
            store.host[index] = X.detach().to("cpu", copy=True)
        with torch.no_grad():
            return layer(X, cos, sin)

    @staticmethod
    def backward(ctx, dY):
        host = ctx.store.host[ctx.index]
        x = torch.empty(host.shape, dtype=host.dtype)  # hidden_states.to("cuda:0"): a new tensor each layer
        with kernel():
            x.copy_(host)
        return None, None, None, recompute_backward(ctx, x.detach(), dY), None, None


MEASURED_LAYER = 1
WINDOW: dict[str, int] = {}
LEGACY = False  # Unsloth 2025.1.5 (the README tables' version) instead of UNSLOTH's kernels and checkpointing
ATTENTION = "flash"  # or "xformers" (LEGACY only: Unsloth 2025.1.5 without flash-attn installed)


class UnslothFusedLoss(torch.autograd.Function):
    """cross_entropy_loss.py:176: the hidden states' gradient computed in the forward, chunk by chunk, and saved."""

    @staticmethod
    def forward(ctx, hidden, weight, labels, n_chunks):
        grad_inputs = torch.empty_like(hidden)
        total = hidden.shape[0] * hidden.shape[1]
        loss = torch.zeros(1)[0]
        flat, gflat = hidden.reshape(-1, hidden.shape[-1]), grad_inputs.view(-1, hidden.shape[-1])
        for hj, gj, lj in zip(flat.chunk(n_chunks), gflat.chunk(n_chunks), labels.view(-1).chunk(n_chunks),
                              strict=True):
            with torch.enable_grad():
                x = hj.detach().requires_grad_()
                chunk_loss = F.cross_entropy(F.linear(x, weight).float(), lj, reduction="sum") / total
                (g,) = torch.autograd.grad(chunk_loss, (x,))
            gj[:] = g
            loss = loss + chunk_loss.detach()
        ctx.save_for_backward(grad_inputs)
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (grad_inputs,) = ctx.saved_tensors
        return grad_inputs, None, None, None


def measure(h, inter, a, kv, rank, seq, batch=1, layers=3, vocab=1024, legacy=False, attention="flash"):
    global TRACKER, LEGACY, ATTENTION
    LEGACY, ATTENTION = legacy, attention
    torch.manual_seed(0)
    d = h // a
    blocks = [Layer(h, inter, a, kv, rank) for _ in range(layers)]
    embed = torch.randn(vocab, h, dtype=DTYPE)
    final = torch.ones(h, dtype=DTYPE)
    head = torch.randn(vocab, h, dtype=DTYPE) / math.sqrt(h)
    ids = torch.randint(0, vocab, (batch, seq))
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
    freqs = torch.outer(torch.arange(seq).float(), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(DTYPE), emb.sin().to(DTYPE)
    store = Offload()
    TRACKER = tracker = Tracker()
    WINDOW.clear()
    params = [p for blk in blocks for p in blk.parameters()]
    tracker.track_all([*params, embed, final, head, ids, cos, sin])
    with tracker:
        with tracker.in_phase("forward"):
            x = F.embedding(ids, embed).requires_grad_()  # the embedding's output, as peft's input hook leaves it
            for index, blk in enumerate(blocks):
                if legacy:
                    x = OffloadedCheckpointer.apply(blk, index, store, x, cos, sin)
                else:
                    x = UnslothCheckpoint.apply(blk, index, index == layers - 1, store, x, cos, sin)
            x = Fast_RMS_Layernorm.apply(x, final, 1e-5)
            loss = UnslothFusedLoss.apply(x, head, ids, 4)
            del x  # the final norm's output: CausalLM_fast_forward has returned by the backward
        with tracker.in_phase("backward"):
            loss.backward()
    TRACKER = None
    start = tracker.phases["forward"]["start"]
    return {"hidden": h, "intermediate": inter, "heads": a, "kv_heads": kv, "head_dim": d, "rank": rank,
            "recompute_saved": WINDOW["recompute_saved"], "backward_peak": WINDOW["backward_peak"],
            "step_peak_above_start": tracker.phases["backward"]["peak"] - start}


SHAPES = [  # (hidden, intermediate, heads, kv heads, rank): each at 512 and 1,024 tokens, and one at batch 2
    (256, 688, 4, 2, 16),
    (384, 1024, 6, 2, 8),
    (512, 1376, 8, 8, 32),
    (256, 1024, 4, 1, 64),
    (512, 768, 8, 4, 16),
]
SEQS = (512, 1024)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="")
    parser.add_argument("--legacy", action="store_true",
                        help="Unsloth 2025.1.5 (e3162dc5) with unsloth_zoo 2025.1.3, the README tables' version")
    parser.add_argument("--attention", choices=("flash", "xformers"), default="flash",
                        help="with --legacy: flash-attn, or xformers (keys and values copied to every head)")
    args = parser.parse_args(argv)
    if args.attention != "flash" and not args.legacy:
        parser.error("--attention: xformers is Unsloth 2025.1.5's path only (add --legacy)")
    run = {"legacy": args.legacy, "attention": args.attention}
    torch.set_num_threads(2)
    cases = []
    for h, inter, a, kv, rank in SHAPES:
        short, long = (measure(h, inter, a, kv, rank, seq, **run) for seq in SEQS)
        tokens = SEQS[1] - SEQS[0]
        case = {key: short[key] for key in ("hidden", "intermediate", "heads", "kv_heads", "head_dim", "rank")}
        case.update(
            recompute_saved_per_token=(long["recompute_saved"] - short["recompute_saved"]) / tokens,
            backward_peak_per_token=(long["backward_peak"] - short["backward_peak"]) / tokens,
            step_backward_peak_per_token=(long["step_peak_above_start"] - short["step_peak_above_start"]) / tokens,
            at={seq: {key: run[key] for key in ("recompute_saved", "backward_peak", "step_peak_above_start")}
                for seq, run in zip(SEQS, (short, long), strict=True)})
        print(f"h={h} I={inter} a={a} kv={kv} r={rank}: recompute {case['recompute_saved_per_token']:,.1f} B/token, "
              f"backward peak {case['backward_peak_per_token']:,.1f}, step {case['step_backward_peak_per_token']:,.1f}",
              file=sys.stderr)
        cases.append(case)
    batch2 = measure(*SHAPES[0], SEQS[0], batch=2, **run)
    same = measure(*SHAPES[0], SEQS[1], **run)
    assert batch2["backward_peak"] == same["backward_peak"], (batch2["backward_peak"], same["backward_peak"])
    if args.out:
        sources = [LEGACY_UNSLOTH, LEGACY_ZOO] if args.legacy else [UNSLOTH, ZOO]
        P.write_golden(args.out, "measure_unsloth_lora.py", {"sources": sources, "dtype": "bfloat16", **run,
                                                              "seqs": list(SEQS), "cases": cases},
                       note=", CPU; Unsloth's Triton kernels and flash-attn rebuilt as the buffers they allocate")


if __name__ == "__main__":
    main()
