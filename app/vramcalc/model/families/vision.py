"""A multimodal model's vision part: the vision tower and its projector, a named part beside the language
model (its parameters counted apart from `param_count`), and the tokens an image becomes."""

from __future__ import annotations

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class Vision:
    family: str  # the multimodal config's model_type (qwen2_5_vl, gemma3, llama4, mistral3, ...)
    params: int  # the vision tower and projector: AutoModelForImageTextToText's parameters less the language model's
    patch: int = 14  # pixels per patch side
    merge: int = 1  # patches merged into one token, per side (Qwen's spatial_merge_size, Mistral 3's)
    size: int = 0  # Llama 4's tile side, Pixtral's longest edge, Gemma 3's image side
    tokens: int = 0  # tokens of every image, whatever its size (Gemma 3's mm_tokens_per_image)
    hidden: int = 0  # the tower's width, attention heads and MLP width (its activations, `encoder_peak`)
    heads: int = 1
    inter: int = 0
    channels: int = 3  # values per pixel of a patch (Qwen's in_channels × temporal_patch_size)
    deep: int = 0  # Qwen3-VL: the deepstack mergers' outputs kept through the tower, values per merged token
    grid: tuple[tuple[int, int], ...] = ()  # LLaVA-NeXT's image_grid_pinpoints (height, width)
    out: int = 0  # LLaVA: the projector's width (the text's hidden size)
    cls: bool = False  # LLaVA: CLIP's tower, with a class token and a quick-GELU MLP (else SigLIP's)
    tiles: int = 0  # Llama 3.2 Vision: max_num_tiles, the tiles of size pixels every image is padded to
    # Llama 3.2 Vision, for what a training step saves (`mllama_tower_saved`): the local layers (num_hidden_layers),
    # the gated global ones, and the width of the tower's output, its last and intermediate layers' states together
    # (vision_output_dim)
    depth: int = 0
    global_depth: int = 0
    features: int = 0


def image_tokens(vision: Vision, width: int, height: int) -> int:
    """Tokens an image of width × height pixels becomes in the prompt, as transformers 5.23's processor makes
    them with the released preprocessor_config.json (tools/measure_vision.py holds each family to it)."""
    p, k, family = vision.patch, vision.merge, vision.family
    if family == "mllama":  # MllamaProcessor: one <|image|> token; its tiles reach the cross-attention layers
        return 1  # (cross_tokens), not the prompt
    if family in ("gemma3", "llava"):  # Gemma3Processor's mm_tokens_per_image (no pan-and-scan crops); LLaVA's
        return vision.tokens  # (image_size / patch)², the class token as the feature strategy keeps it
    if family in LLAVA:  # LLaVA-NeXT/OneVision: the base tile's and the unpadded grid's tokens, a newline each row
        return vision.tokens + _anyres(vision, width, height)[0]
    if family == "gemma4":  # get_aspect_ratio_preserving_size: at most tokens × k² patches, sides of k × patch
        side, scale = k * p, math.sqrt(vision.tokens * k * k * p * p / (height * width))
        h, w = math.floor(height * scale / side) * side, math.floor(width * scale / side) * side
        if not h:
            h, w = side, min(width // height * side, vision.tokens * side)
        elif not w:
            h, w = min(height // width * side, vision.tokens * side), side
        return (h // p) * (w // p) // (k * k)
    if family == "llama4":  # Llama4ImageProcessor's canvas of size-pixel tiles (get_best_fit), then a global tile
        rows, cols = _llama4_tiles(vision.size, width, height)
        tile = (vision.size // p) ** 2 // (k * k)  # after the pixel shuffle
        return 3 + tile + (rows * cols * tile + rows * cols if rows * cols > 1 else 0)  # separators, start, end
    if family == "mistral3":  # PixtralImageProcessor: within the longest edge, (patch × merge)-pixel tokens, a
        f, ratio = p * k, max(width, height) / vision.size  # break after each row (the last one the end)
        if ratio > 1:
            width, height = math.floor(width / ratio), math.floor(height / ratio)
        return ((width - 1) // f + 2) * ((height - 1) // f + 1)
    if family == "internvl":  # GotOcr2ImageProcessor's tiles of size pixels (and a thumbnail when more than one)
        return 2 + _internvl_tiles(vision.size, width, height) * (vision.size // p) ** 2 // (k * k)  # <img>, </img>
    if family in GLM:  # Glm4vImageProcessor's smart_resize of two frames within 12,544 and 9,633,792 pixels, a
        f = p * k  # side under patch × merge scaled up to it first
        if width < f or height < f:
            scale = max(f / height, f / width)
            width, height = int(width * scale), int(height * scale)
        return _smart_resize(f, width, height, 6272, 4816896)
    # Qwen2VLImageProcessor's smart_resize: sides rounded to patch × merge, the area within min and max pixels
    low, high = (3136, 12845056) if family in ("qwen2_vl", "qwen2_5_vl") else (65536, 16777216)
    return _smart_resize(p * k, width, height, low, high)


def cross_tokens(vision: Vision) -> int:
    """Llama 3.2 Vision: the vision tokens of one image its cross-attention layers attend to and cache, as
    transformers 5.23 keeps them: the processor pads every image to max_num_tiles tiles (pack_images), each tile
    (size / patch)² patches and a class token, whatever the image's size (measured: 4 × 17 at 56-pixel tiles
    for a 56 × 56 and a 112 × 56 image alike)."""
    return vision.tiles * ((vision.size // vision.patch) ** 2 + 1)


def mllama_tower_saved(vision: Vision, e: int, eager: bool) -> int:
    """Bytes MllamaVisionModel and the projector save for backward per image when the tower is trained (transformers
    5.23 modeling_mllama.py `MllamaVisionModel.forward`, measured by tools/measure_mllama.py): T tiles of n = (size /
    patch)² + 1 tokens (the class token), padded to N = T · ceil8(n) through the layers; width d, a heads, MLP I.
    The patch convolution's input (T · 3 · size² values), the gated tile and position embeddings (T·d and T·n·d),
    layernorm_pre's input (T·n·d) with its fp32 mean and 1/std (8 B a token, as CUDA's LayerNorm keeps them); the
    aspect-ratio mask N² (the SDPA kernel keeps it; eager adds it, keeping nothing); each of the `depth` layers per
    token: two LayerNorms (e·d + 8 each), q/k/v's input, q, k, v and the output (5·e·d), fc1's input and GELU's
    input and output (e·d + 2·e·I), and SDPA's fp32 log-sum-exp (4a) or eager's fp32 softmax and its cast
    (a·N·(4 + e)); layernorm_post (e·d + 8); each global layer the same with its two gates' inputs (2·e·d); and
    the projector's input, T · n · vision_output_dim."""
    t, d, a, i = vision.tiles, vision.hidden, vision.heads, vision.inter
    n = (vision.size // vision.patch) ** 2 + 1
    big = t * -(-n // 8) * 8
    attention = a * big * (4 + (e if e < 4 else 0)) if eager else 4 * a
    layer = 2 * (e * d + 8) + 5 * e * d + e * d + 2 * e * i + attention
    embeddings = t * vision.channels * vision.size ** 2 * e + 2 * t * d * e + 8 + 5 * e + t * n * d * e
    pre = t * n * (d * e + 8)
    mask = 0 if eager else big * big * e
    layers = big * (vision.depth * layer + (e * d + 8) + vision.global_depth * (layer + 2 * e * d)) + 2 * e * (
        vision.global_depth)
    return embeddings + pre + mask + layers + t * n * vision.features * e


def mllama_tower_lora_saved(vision: Vision, e: int, adapter_e: int, eager: bool, targets: tuple[str, ...],
                            rank: int, dropout: float, inputs_grad: bool = False) -> int:
    """Bytes MllamaVisionModel and the projector save per image under LoRA, the tower frozen but for the adapters on
    `targets` (of q, k, v, o, fc1, fc2, projector: training/lora.py `tower_targets`; measured by
    tools/measure_mllama_lora.py). Nothing before the first adapter needs a gradient, so the embeddings,
    layernorm_pre and the first layer's input norm save nothing, its attention only what its adapted q/k/v need
    and their dropout no mask; from there on, per token of the N padded ones and layer: the two LayerNorms' inputs
    (e·d + 8 each), SDPA's q, k, v, output and log-sum-exp (4·e·d + 4a; eager: q, k, v, the fp32 softmax and its
    cast, 3·e·d + a·N·(4 + e)), GELU's input (e·I), not the frozen linears' inputs nor the frozen gates'; lora_A its
    input (one e-wide copy shared by the adapters reading it, or each its own fp32 cast, or under dropout a 1-byte
    mask and the dropped copy; SDPA's output already is o_proj's), lora_B r values; SDPA's N² mask once;
    layernorm_post; with an adapter on the projector its input, T · n · vision_output_dim.
    `inputs_grad`: transformers' gradient_checkpointing_enable makes the patch embedding's output ask for a gradient
    (enable_input_require_grads; MllamaVisionModel's get_input_embeddings), adapters or not: the graph holds that
    output (T·(n − 1)·d), layernorm_pre keeps its input and statistics and the first layer saves as the others do."""
    if not targets and not inputs_grad:
        return 0
    t, d, a, i = vision.tiles, vision.hidden, vision.heads, vision.inter
    n = (vision.size // vision.patch) ** 2 + 1
    big = t * -(-n // 8) * 8
    norm = e * d + 8
    cast = e if e < 4 else 0  # the softmax's cast back (none in fp32)
    attention = 3 * e * d + a * big * (4 + cast) if eager else 4 * e * d + 4 * a
    reads = {"q": ("norm", d), "k": ("norm", d), "v": ("norm", d), "o": ("attention", d), "fc1": ("mlp", d),
             "fc2": ("gelu", i)}
    layer_targets = [name for name in targets if name in reads]
    if dropout > 0 or adapter_e != e:
        inputs = sum(reads[name][1] * ((1 if dropout > 0 else 0) + adapter_e) for name in layer_targets)
    else:
        inputs = e * sum(width for source, width in {reads[name] for name in layer_targets}
                         if source != "attention" or eager)
    adapters = inputs + rank * adapter_e * len(layer_targets)
    live = 2 * norm + attention + e * i + adapters
    q, k, v = ("q" in targets), ("k" in targets), ("v" in targets)
    if not eager:  # with no adapted q/k/v SDPA keeps nothing, so o's lora_A keeps its input itself
        first = attention if q or k or v else e * d * ("o" in targets and dropout == 0 and adapter_e == e)
    else:  # a matmul keeps each operand only for the other's gradient
        first = e * d * (k + q + (q or k)) + a * big * (4 * (q or k) + cast * v)
    # the first layer's dropout keeps no mask where the adapter's input needs no gradient: q/k/v's, and o's when
    # no q/k/v is adapted
    unmasked = (dropout > 0) * d * (q + k + v + ("o" in targets and not (q or k or v)))
    first = live if inputs_grad else live - norm - attention + first - unmasked
    layers = (vision.depth - 1) * live + first + norm + vision.global_depth * live
    mask = 0 if eager else big * big * e
    if inputs_grad:
        mask += t * (n - 1) * d * e + t * n * (d * e + 8)
    projector = 0
    if "projector" in targets:
        projector = t * n * (vision.features * ((1 if dropout > 0 else 0) + adapter_e) + rank * adapter_e)
    return mask + big * layers + 2 * e * vision.global_depth + projector


def _smart_resize(f: int, width: int, height: int, low: int, high: int, frames: int = 1, t: int = 1) -> int:
    """The f × f-pixel tokens of an image resized to sides of multiples of f within low and high pixels (a video's
    `frames`, t of them rounded to pairs, within them together: Qwen3-VL's and GLM's video smart_resize)."""
    h, w = round(height / f) * f, round(width / f) * f
    if t * h * w > high:
        beta = math.sqrt(frames * height * width / high)
        h, w = max(f, math.floor(height / beta / f) * f), max(f, math.floor(width / beta / f) * f)
    elif t * h * w < low:
        beta = math.sqrt(low / (frames * height * width))
        h, w = math.ceil(height * beta / f) * f, math.ceil(width * beta / f) * f
    return h * w // (f * f)


def _anyres(vision: Vision, width: int, height: int) -> tuple[int, int]:
    """(tokens, tiles) of LLaVA-NeXT's and OneVision's grid beside the base tile: select_best_resolution among
    image_grid_pinpoints, the grid's patches less the padding (_get_unpadded_features) and a newline per row;
    OneVision's anyres_max_9 shrinks a grid of more than 9 tiles' patches (by more than 1.1) to about that."""
    best = (0, -math.inf, 0, 0)
    for h, w in vision.grid:  # the first of the most kept pixels, then of the least waste
        scale = min(w / width, h / height)
        kept = min(int(width * scale) * int(height * scale), width * height)
        if (kept, kept - w * h) > best[:2]:
            best = (kept, kept - w * h, h, w)
    side = vision.size // vision.patch
    rows, cols = best[2] // vision.size * side, best[3] // vision.size * side
    if width / height > cols / rows:
        rows -= (rows - int(round(height * (cols / width), 7))) // 2 * 2
    else:
        cols -= (cols - int(round(width * (rows / height), 7))) // 2 * 2
    tiles = best[2] // vision.size * (best[3] // vision.size)
    ratio = math.sqrt(rows * cols / (9 * side * side))
    if vision.family == "llava_onevision" and ratio > 1.1:
        rows, cols = int(rows // ratio), int(cols // ratio)
    return rows * cols + rows, tiles


def _internvl_tiles(size: int, width: int, height: int, most: int = 12) -> int:
    """get_optimal_tiled_canvas: the grid of at most `most` tiles nearest the image's aspect ratio (ties to the
    larger grid while the image covers more than half its area), and a thumbnail beside more than one tile."""
    best, diff = (1, 1), math.inf
    for a, b in sorted(((a, b) for a in range(1, most + 1) for b in range(1, most + 1) if a * b <= most),
                       key=lambda g: g[0] * g[1]):
        d = abs(width / height - a / b)
        if d < diff:
            best, diff = (a, b), d
        elif d == diff and width * height > 0.5 * size * size * a * b:
            best = (a, b)
    return best[0] * best[1] + (best != (1, 1))


def _llama4_tiles(size: int, width: int, height: int, chunks: int = 16) -> tuple[int, int]:
    """find_supported_resolutions and get_best_fit: the smallest upscale (else the least downscale) among the
    canvases of at most `chunks` tiles, the smallest area among equals."""
    shapes: dict[float, list[tuple[int, int]]] = {}
    for n in range(chunks, 0, -1):
        for a in (a for a in range(1, n + 1) if n % a == 0):
            shapes.setdefault(a / (n // a), []).append((a, n // a))
    canvases = [shape for same in shapes.values() for shape in same]
    scales = [min(a * size / height, b * size / width) for a, b in canvases]
    up = [s for s in scales if s >= 1]
    best = min(up) if up else max(scales)
    return min((c for c, s in zip(canvases, scales, strict=True) if s == best), key=lambda c: c[0] * c[1])


def video_grid(vision: Vision, seconds: float, fps: float, width: int, height: int) -> tuple[int, int, int]:
    """(frame pairs, tokens of each, the text tokens beside them) of one video of `seconds` sampled at `fps`, frames of
    width × height, as transformers 5.23's video processor and processor make them (tools/measure_vision.py), the
    video's own frame rate above `fps`. Qwen2/2.5-VL (Qwen2VLVideoProcessor sampling at fps): 4 to 768 frames, in
    pairs, each frame as an image (the released preprocessor_config.json's pixels). Qwen3-VL, Qwen3.5: int(seconds ×
    fps) frames within 4 and 768, the whole video's pixels within 4,096 and 25,165,824 (video_preprocessor_config.json),
    each pair after "<t seconds>" (t to one decimal, a token per digit: Qwen's tokenizer) and between vision_start
    and vision_end. GLM-4.xV (Glm4vVideoProcessor's defaults): fps frames a second up to 300 s (else 300 × fps over
    the video), in pairs within 12,544 and 47,040,000 pixels, each pair between begin/end of image and then its
    first frame's whole second (a token per three digits, GLM's tokenizer splitting numbers so; not measured)."""
    f, family = vision.patch * vision.merge, vision.family
    if family in ("qwen2_vl", "qwen2_5_vl"):
        frames = math.floor(min(max(seconds * fps, 4), 768) / 2) * 2
        return frames // 2, image_tokens(vision, width, height), 0
    if width < f or height < f:  # a side under f scaled up first
        scale = max(f / height, f / width)
        width, height = int(width * scale), int(height * scale)
    if family in GLM:
        frames = max(math.floor(seconds * fps), 1) if seconds <= 300 else int(300 * fps)
        frames += frames % 2
        step = 1 / fps if seconds <= 300 else seconds / (frames - 1)  # linspace over the video beyond 300 s
        text = sum(2 + -(-len(str(int(2 * g * step))) // 3) for g in range(frames // 2))
        low, high = 12544, 47040000
    else:
        frames = min(max(int(seconds * fps), 4), 768)
        step = seconds / (frames - 1)  # np.linspace over the video; a pair's timestamp is its frames' mean
        text = sum(5 + len(f"{(2 * g + 0.5) * step:.1f}") for g in range(-(-frames // 2)))
        low, high = 4096, 25165824
    groups = -(-frames // 2)
    tokens = _smart_resize(f, width, height, low, high, frames, round(frames / 2) * 2)
    return groups, tokens, text


def video_tokens(vision: Vision, seconds: float, fps: float, width: int, height: int) -> int:
    """Tokens one video becomes in the prompt (video_grid): its frame pairs' and their timestamps'."""
    groups, tokens, text = video_grid(vision, seconds, fps, width, height)
    return groups * tokens + text


QWEN = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe")
GLM = ("glm4v", "glm4v_moe", "glm46v")
LLAVA = ("llava_next", "llava_onevision")  # anyres: a base tile and a grid of tiles, each through the tower
QWEN3 = QWEN[2:]  # Qwen3VLVisionModel's and Qwen3.5's: learned positions interpolated, no windows
VIDEO = QWEN + GLM  # the families whose processor takes videos (video_grid)
# held to tools/measure_vision_peak.py (GLM-4.5V's and GLM-4.6V's towers are Glm4v's code); the others like their kin
MEASURED = ("qwen2_5_vl", "gemma3", "mistral3", "internvl", "glm4v", "llava", "llava_next", "llava_onevision")


LLAMACPP_MAX_TOKENS = 4096  # clip.cpp: Qwen-VL's set_limit_image_tokens(8, 4096), --image-max-tokens to change


def llamacpp_image_tokens(vision: Vision, width: int, height: int) -> int:
    """Tokens an image becomes in llama.cpp (mtmd): Qwen-VL's resized within 8 and 4,096 tokens' pixels
    (mtmd-image.cpp calc_size_preserved_ratio, transformers' smart_resize); the others as their processor."""
    if vision.family not in QWEN:
        return image_tokens(vision, width, height)
    f = vision.patch * vision.merge
    return _smart_resize(f, width, height, 8 * f * f, LLAMACPP_MAX_TOKENS * f * f)


def image_patches(vision: Vision, width: int, height: int) -> int:
    """The patches the tower sees of one image (before any merge)."""
    p, k = vision.patch, vision.merge
    if vision.family == "mllama":  # every tile, its class token, padded to a multiple of 8 (MllamaVisionModel)
        return vision.tiles * -(-((vision.size // p) ** 2 + 1) // 8) * 8
    if vision.family in ("gemma3", "llama4"):  # resized to the square image (a tile)
        return (vision.size // p) ** 2
    if vision.family.startswith("llava"):  # each crop's (a base tile and anyres' grid) and CLIP's class token
        return (1 + (_anyres(vision, width, height)[1] if vision.grid else 0)) * ((vision.size // p) ** 2 + vision.cls)
    if vision.family == "mistral3":  # sides rounded up to patch × merge pixels within the longest edge
        ratio, f = max(width, height) / vision.size, p * k
        if ratio > 1:
            width, height = math.floor(width / ratio), math.floor(height / ratio)
        return ((width - 1) // f + 1) * ((height - 1) // f + 1) * k * k
    if vision.family == "internvl":  # each tile's patches and its class token
        return _internvl_tiles(vision.size, width, height) * ((vision.size // p) ** 2 + 1)
    return image_tokens(vision, width, height) * k * k  # Qwen's and GLM's smart_resize grid, Gemma 4's pooled


def encoder_peak(vision: Vision, images: int, width: int, height: int, e: int, eager: bool,
                 patches: int = 0) -> int:
    """The live bytes of transformers 5.23's `get_image_features` over `images` images at once (the prefill's
    first step, before the language model), weights aside, e bytes per activation; eager attention or sdpa.
    Held to the tracked peak of the real call (tools/measure_vision_peak.py, tests/golden/vision_peak.json).

    n patches an image, P = images × n, h the width, a heads of d = h / a, i the MLP width. Eager attention
    holds a × n² scores three times: scaled (e), cast to fp32 and its fp32 softmax (4 + 4; no cast in fp32).
    `patches`: another engine's count for one image (llama.cpp's cap)."""
    h, a, i, p = vision.hidden, vision.heads, vision.inter, vision.patch
    n = patches or image_patches(vision, width, height)
    big, d = images * n, h // a
    pixels = big * vision.channels * p * p * 4  # the processor's fp32 pixel values
    scores = a * (e + 4 + (4 if e < 4 else 0))  # per query-key pair
    if vision.family == "internvl":  # a batch of tiles, each its patches and a class token (m); the pixels' cast
        m = (vision.size // p) ** 2 + 1  # kept; eager's scores scaled and softmaxed in the compute dtype (2e)
        tiles = big // m
        pixels = tiles * vision.channels * vision.size ** 2 * (4 + (e if e < 4 else 0))
        mlp = pixels + big * (5 * h + 2 * i) * e  # fc1's output and GELU's, five h-wide tensors
        return max(mlp, pixels + 6 * big * h * e + tiles * a * m * m * 2 * e) if eager else mlp
    if vision.family in QWEN + GLM:  # one sequence of all patches, attention image by image (cu_seqlens)
        # the pixels' cast, rotary cos/sin in fp32, position (and Qwen's window) indices
        base = pixels + big * (vision.channels * p * p * e + 8 * d + (16 if vision.family in GLM else 18))
        if vision.family in QWEN3:  # no window index; the interpolated positions kept in fp32 with their four
            base += big * (4 * h + 46) + big // (vision.merge ** 2) * vision.deep * e  # indices and weights
        rotary = base + big * h * (5 * e + 24)  # residual, norm, qkv, and q, k and their rotation in fp32
        attention = base + 7 * big * h * e + (big - n) * h * e + scores * n * n  # earlier images' outputs
        return max(rotary, attention) if eager else rotary
    if vision.family == "mistral3":  # PixtralVisionModel: one sequence, a block-diagonal P × P mask in e
        base = pixels + big * big * e + 2 * big * d * e + 16 * big
        mlp = base + 5 * big * h * e + 3 * big * i * e  # the gated MLP's three i-wide tensors
        return max(mlp, base + 7 * big * h * e + scores * big * big) if eager else mlp
    # SigLIP (Gemma 3, LLaVA-OneVision; Gemma 4 and Llama 4 alike) and CLIP (LLaVA): a batch of images (crops),
    crops, m = images, n  # the embeddings kept through the encoder; CLIP's quick GELU holds three i-wide tensors
    if vision.family.startswith("llava"):
        m = (vision.size // p) ** 2 + vision.cls
        crops = big // m
        pixels = crops * vision.channels * vision.size ** 2 * 4 * (2 if vision.grid else 1)  # anyres: cat's copy
    mlp = pixels + 4 * big * h * e + (2 + vision.cls) * big * i * e
    peak = max(mlp, pixels + 6 * big * h * e + crops * scores * m * m) if eager else mlp
    if vision.out:  # LLaVA: the tower's last and chosen states kept through the projector (its two out-wide
        kept, t = pixels + 2 * big * h * e, vision.out * e  # tensors) and NeXT's packing of each image
        chosen = big - crops * (vision.tokens == m - 1)  # the class token dropped ("default")
        peak = max(peak, kept + 2 * chosen * t)
        if vision.grid:  # the projected crops, earlier images' packed features, the grid's permuted copy or
            each, grid = image_tokens(vision, width, height), crops // images - 1  # the packed so far, a newline
            rows = each - vision.tokens  # cat's output, then the image's with its base tile
            peak = max(peak, kept + chosen * t + max(images * each, (images - 1) * each + grid * vision.tokens) * t
                       + rows * t)
    return peak
