"""The Brazilian Portuguese (pt-BR) catalogue: every sentence of messages.EN, with
exactly the same keys and the same str.format placeholders and format specs.
Checked by tests/test_messages_pt.py."""

from __future__ import annotations

from collections.abc import Mapping

PT: Mapping[str, str] = {
    # component labels
    "weights": "Pesos",
    "gradients": "Gradientes",
    "optimizer": "Estado do otimizador",
    "master_weights": "Pesos mestres (fp32)",
    "kv_cache": "Cache KV",
    "activations": "Ativações",
    "logits": "Logits",
    "temporaries": "Temporários do passo",
    "overhead": "Sobrecarga do framework",
    # the phases of a training step (step.py)
    "phase.forward": "fim da passagem direta",
    "phase.loss": "início da passagem reversa, no gradiente da perda",
    "phase.backward_start": "passagem reversa pela última camada",
    "phase.backward_end": "fim da passagem reversa",
    "phase.optimizer": "passo do otimizador",
    "phase.reference": "passagem direta do modelo de referência",
    "phase.generation": "geração das respostas",
    "phase.kl": "passagem direta da política sobre o lote KL do KTO",
    "temporaries.kl": ("a passagem direta da política sem gradientes sobre o lote KL do KTO (prompts e respostas "
        "trocados), o maior entre o trabalho de uma camada e sua cabeça de saída = {bytes}"),
    "temporaries.generate": ("o trabalho do generate: o prefill de uma camada ou os logits fp32 da posição "
        "amostrada = {bytes}"),
    "kv_cache.generate": "o cache do transformers ao gerar para {sequences} {sequences:sequência|sequências} = {bytes}",
    "kv_cache.vllm_colocate": ("a parcela do vLLM na mesma GPU: {utilization} × a GPU = {bytes} (do código-fonte "
        "do vLLM)"),
    "temporaries.dpo_head": ("a cabeça de saída fundida do TRL: seu bloco de até 4.096 tokens × 32.768 entradas do "
        "vocabulário e os estados ocultos finais = {bytes}"),
    "temporaries.reference": ("a passagem direta do modelo de referência (sem gradientes; também a da política antiga "
        "onde o TRL a calcula: RLOO, e GRPO que reusa suas respostas ou com vLLM), o maior entre o trabalho "
        "de uma camada e sua cabeça de saída = {bytes}"),
    "temporaries.dpo_backward": ("a passagem reversa da cabeça fundida: seu bloco e os gradientes fp32 da entrada e "
        "do peso, com suas conversões = {bytes}"),
    "weights.reference": " + o modelo de referência, uma cópia congelada = {bytes}",
    "weights.ppo": " + os modelos de valor e de recompensa (cada um o tronco com uma saída de 1 valor) = {bytes}",
    "ppo.value": " + os do modelo de valor, treinado com a política = {bytes}",
    "temporaries.ppo_generate": ("a geração do rollout em blocos de {chunk}: os escores fp32 dos novos tokens, "
        "guardados, empilhados e copiados num só tensor = {bytes}"),
    "temporaries.ppo_reference": ("a passagem direta da referência sobre um bloco de {chunk} sem gradientes (seu "
        "cache, estados ocultos e logits, ou o trabalho de uma camada; as dos modelos de valor e de recompensa são "
        "menores) = {bytes}"),
    "temporaries.ppo_backward": ("a passagem reversa da cabeça: dois gradientes do tamanho dos logits e um do das "
        "respostas = {bytes}"),
    "logits.ppo": ("Os logits da política ({batch} × {seq} × {vocab}), seus estados ocultos e o log-softmax das "
        "respostas guardado (com acumulação, também os do microlote anterior) = {bytes}, e os escores fp32 do "
        "rollout, guardados durante a atualização = {scores}"),
    "logits.orpo": ("Os logits do ORPO, inteiros: {sequences} {sequences:sequência|sequências} × {seq} × {vocab} = "
        "{logits}, o log-softmax da metade escolhida para a entropia cruzada = {chosen}, e as estatísticas fp32 do "
        "núcleo de log-probabilidades, ao todo {bytes}"),
    "temporaries.orpo_copy": "os logits da metade escolhida copiados para a entropia cruzada = {bytes}",
    "temporaries.orpo_backward": ("a passagem reversa das perdas: os gradientes das log-probabilidades e da entropia "
        "cruzada, cada um do tamanho dos logits, e sua soma = {bytes}"),
    "logits.dpo": ("Sem logits: a cabeça fundida do TRL guarda 8 B (normalizador logarítmico e entropia em "
        "fp32) para cada um dos {tokens} tokens avaliados = {bytes}"),
    "phase.line": "Fase do passo, {phase}: {total}",
    "phase.line.peak": "Fase do passo, {phase}: {total} (o pico, mostrado acima)",
    "phase.live": "; no pico ({phase}), {bytes} estão em uso",
    "temporaries.inference": "nenhum além do pico das ativações",
    "temporaries.none": "nenhum neste instante",
    "temporaries.prefill_window": "o prefill: as camadas de janela deslizante guardam o K/V do prompt inteiro até o "
                                  "primeiro token novo = {bytes}",
    "temporaries.loss": "a passagem reversa da entropia cruzada: os gradientes fp32 de nll_loss e log_softmax, em uso "
                        "ao mesmo tempo, 2 × 4 B × {tokens} tokens × vocabulário de {vocab} = {bytes}",
    "temporaries.chunk_upcast": "a cópia fp32 que a loss faz do seu último bloco de logits = {bytes}",
    "temporaries.loss_chunk": "a passagem reversa da loss em blocos, um dos seus {chunks} blocos por vez = {bytes}",
    "temporaries.backward": "a passagem reversa de uma camada: os gradientes dos tensores ocultos do seu MLP (cerca de "
                            "3 × lote × seq × largura do MLP){dequantised} = {bytes}{hidden}",
    "temporaries.hidden_gradient": ", e o gradiente dos estados ocultos = {bytes}",
    "temporaries.norm_backward": "a passagem reversa da norma final: cinco cópias fp32 dos estados ocultos = {bytes}",
    "temporaries.layer_forward": "a passagem direta de uma camada com checkpoint num adaptador do MLP: a cópia fp32 "
                                 "do peft, a saída de lora_B e a sua cópia escalada ao lado da saída congelada, do "
                                 "resíduo e da saída da norma = {bytes}",
    "temporaries.recompute_forward": "a recomputação de uma camada com checkpoint no adaptador de down: a entrada "
                                     "e a saída do seu MLP, o seu resíduo e o gradiente dos estados ocultos = {bytes}",
    "temporaries.in_backward": "a atualização do {optimizer} de um tensor dentro da passagem reversa (o otimizador "
                               "aplica cada gradiente assim que é feito) = {bytes}",
    "field.framework.label": "Framework",
    "field.framework.help": "O programa em que o ajuste fino roda: os seus padrões preenchem os ajustes deixados "
                            "nos deles (um ajuste que você muda prevalece), e as suas mecânicas se aplicam.",
    "option.framework.trainer": "Hugging Face Trainer / TRL",
    "option.framework.unsloth": "Unsloth",
    "option.framework.torchtune": "torchtune",
    "option.framework.litgpt": "LitGPT",
    "option.framework.axolotl": "Axolotl",
    "note.framework.set": "Os padrões do {framework} definiram {settings}; um ajuste que você muda prevalece.",
    "note.framework.unchanged": "O {framework} não muda nenhum ajuste aqui: os seus padrões são os do formulário.",
    "note.framework.unsloth": "O checkpointing do Unsloth descarrega a entrada de cada camada, menos a última, na "
                              "memória do host, a partir de 512 tokens e acima de 2 MiB por entrada.",
    "note.framework.torchtune": "As camadas do torchtune são contadas como o transformers as escreve. As dele repetem "
                                "K e V para cada cabeça de consulta e guardam uma cópia fp32 a mais em cada RMSNorm: "
                                "medido na camada do Llama 3.2 dele, de 7 a 16 % a mais salvos por camada. O "
                                "torch.compile, ligado nas tabelas publicadas dele, é o ajuste compile.",
    "note.compile": "torch.compile: cada camada guarda {bytes} B por token, {eager} B sem ele (medido nas camadas "
                    "Llama, Qwen2 e Qwen3 do transformers). A loss é contada como sem ele.",
    "note.compile_chunked": "torch.compile: cada camada guarda {bytes} B por token, {eager} B sem ele (medido nas "
                            "camadas Llama, Qwen2 e Qwen3 do transformers), e a loss em blocos também é compilada.",
    "assumption.compile": "o torch.compile foi medido em camadas densas do tipo Llama com SDPA em bf16 ou fp16, e "
                          "LoRA com adaptadores de 16 bits na entrada de cada linear, sem dropout: aqui as camadas são "
                          "contadas como sem ele, mais do que o passo compilado guarda",
    "field.ce_output_chunks.label": "Loss com saída em blocos (torchtune), blocos",
    "field.ce_output_chunks.help": "A cabeça produz os logits neste número de blocos e a loss converte um por vez "
                                   "(receitas do torchtune: 8). 0: logits inteiros.",
    "field.bnb_version.label": "Versão do bitsandbytes",
    "field.bnb_version.help": "Antes da 0.43.2 cada camada de 4 bits guardava a sua entrada para a passagem reversa, "
                              "com o peso congelado ou não; antes da 0.45 gera mais devagar (bnb-int8 cerca de 1,7x, "
                              "4 bits um pouco). Vazio: uma versão atual.",
    "note.bnb_old": "bitsandbytes {version}: as multiplicações de 4 bits das camadas guardam as suas entradas para a "
                    "passagem reversa, {bytes} B por token a mais somadas as camadas (corrigido na 0.43.2).",
    "field.quantise.label": "Camadas quantizadas",
    "field.quantise.help": "Todas as camadas lineares, ou só as MLPs e os especialistas, com a atenção em 16 bits (o "
                           "Llama 3.1 405B FP8 da Meta; modules_to_not_convert).",
    "option.quantise.all": "todas as camadas lineares",
    "option.quantise.mlp": "só MLPs e especialistas",
    "field.compile.label": "Compilar as camadas (torch.compile, torchtune)",
    "field.compile.help": "Cada camada compilada: guarda menos tensores para a passagem reversa e recalcula o resto.",
    "field.activation_offload.label": "Descarregar as ativações na memória do host (torchtune, TRL)",
    "field.activation_offload.help": "As ativações salvas são copiadas para a memória do host na passagem direta e "
                                     "trazidas de volta para a reversa; com checkpointing, as entradas das camadas. "
                                     "Uma GPU, passos supervisionados.",
    "activations.offload.hooks": "; descarregadas na memória do host (hooks de tensores salvos, do torchtune e do "
                                 "TRL): na GPU {forward} ao fim da passagem direta e {backward} durante a reversa "
                                 "das camadas; pelo menos {host} na memória do host",
    "activations.offload.unsloth": "; checkpointing com descarga do Unsloth: as entradas das camadas, menos a última, "
                                   "na memória do host ({host}), na GPU {forward} ao fim da passagem direta, "
                                   "{backward} enquanto uma camada é recomputada, e dois buffers de uma entrada de "
                                   "camada ({buffers}) durante todo o passo",
    "field.optimizer_in_backward.label": "Passo do otimizador dentro da passagem reversa (torchtune)",
    "field.optimizer_in_backward.help": "Cada gradiente é aplicado e liberado assim que é feito: o gradiente inteiro "
                                        "nunca existe. Uma GPU, sem acumulação de gradientes.",
    "temporaries.dequantised": ", e a maior matriz de 4 bits, desquantizada para o seu matmul ({bytes})",
    "temporaries.optimizer.foreach": "a atualização foreach do {optimizer}: uma cópia do segundo momento inteiro "
                                     "(torch._foreach_sqrt) = {bytes}",
    "temporaries.optimizer.for-loop": "a atualização do {optimizer}, um tensor por vez: cópias do maior tensor "
                                      "= {bytes}",
    "temporaries.optimizer.fused": "a atualização fused do {optimizer} não faz cópias = {bytes}",
    # formulas in words
    "weights.formula": "{params} parâmetros × {bits} bits ({precision}) = {bytes}",
    "gradients.formula": "{params} parâmetros × {bits} bits (um gradiente por peso, {precision}) = {bytes}",
    "gradients.none": "a inferência não guarda gradientes",
    "optimizer.formula": "{params} parâmetros × {per_param} bytes ({optimizer}: {what}) = {bytes}",
    "optimizer.none": "a inferência não guarda estado do otimizador",
    "optimizer.sgd": "o SGD puro não guarda estado",
    "optimizer.state.adamw": "momento + variância",
    "optimizer.state.adam": "momento + variância",
    "optimizer.state.paged-adamw": "momento + variância em fp32, em memória paginada",
    "optimizer.state.adamw-8bit": "momento + variância em 8 bits, com escalas de bloco em fp32",
    "optimizer.state.paged-adamw-8bit": "momento + variância em 8 bits, com escalas de bloco em fp32, paginados",
    "optimizer.state.adafactor": "segundos momentos fatorados",
    "optimizer.state.lion": "momento",
    "optimizer.state.sgd-momentum": "momento",
    "optimizer.paged": (
        "; paginado: sob pressão de memória, o estado passa para a memória do host em vez de falhar, então o pico na "
        "GPU pode ser menor, ao custo de velocidade. {bytes} dele é memória gerenciada da CUDA, que o alocador do "
        "PyTorch não conta: torch.cuda.max_memory_allocated (e o pico que o torchtune registra) mostra isso a menos"
    ),
    "weights.lora": " + adaptadores LoRA: {count} parâmetros treináveis em {dtype} = {bytes}",
    "weights.autocast": " + as cópias de 16 bits dos pesos lineares feitas pelo autocast, mantidas até a passagem "
                        "reversa = {bytes}",
    "weights.format": "{format}: {parts} = {bytes}",
    "weights.vision": "; com a torre de visão e o projetor: {params} parâmetros × {bits} bits = {bytes}{kept}",
    "weights.vision.mmproj": " (o arquivo mmproj do llama.cpp, f16)",
    "weights.vision.unquantized": " (sem quantização, como os checkpoints quantizados a mantêm)",
    "weights.vision_off": "; a torre de visão e o projetor ({params} parâmetros) deixados de fora: só texto",
    "llamacpp.mmproj_ram": "; o mmproj na RAM do sistema (--no-mmproj-offload)",
    "vllm.kv": (
        "{batch} × {tokens} tokens (em blocos inteiros de {block} tokens) = {bytes} para as sequências pedidas; "
        "nesta "
        "placa, o pool do vLLM é de {pool}: {pool_tokens} tokens, {concurrency} {concurrency:sequência|sequências} "
        "de {seq} tokens ao mesmo "
        "tempo"
    ),
    "vllm.kv_state": (
        "{batch} × um estado recorrente por sequência, qualquer que seja o seu comprimento = {bytes}; {where}, o pool "
        "do vLLM é de {pool}: {concurrency} {concurrency:sequência|sequências} ao mesmo tempo"
    ),
    "vllm.this_card": "nesta placa",
    "vllm.each_gpu": "em cada uma das {gpus} GPUs ({layout})",
    "vllm.kv_gpus": (
        "{batch} × {tokens} tokens (em blocos inteiros de {block} tokens) = {bytes} para as sequências pedidas; "
        "em cada uma "
        "das {gpus} GPUs ({layout}), o pool do vLLM é de {pool}: {pool_tokens} tokens, {concurrency} "
        "{concurrency:sequência|sequências} de "
        "{seq} tokens ao mesmo tempo"
    ),
    "vllm.peak": (
        "o pico de ativações da execução de profiling do vLLM: os buffers [max_num_seqs {seqs}, vocabulário {vocab}] "
        "do seu sampler, 32 B por entrada, + 1 GiB para a passagem direta de {batched} tokens (ajustado aos logs "
        "publicados do vLLM V1) = {bytes}"
    ),
    "vllm.draft_buffers": (
        "; os buffers do especulador de rascunho ({batched} {batched:linha|linhas} de ids de tokens, posições e "
        "slots; o vLLM os aloca fora do seu orçamento) = {bytes}, {total} ao todo"
    ),
    "vllm.draft_weights": "o modelo de rascunho {name} em {precision} (o dtype do modelo): {bytes}",
    "vllm.draft_kv": (
        "com as camadas do modelo de rascunho {name} em cada bloco (elas entram no pool do modelo, no seu tipo de "
        "cache)"
    ),
    "vllm.drafter_kv": "o rascunhador não guarda cache: cada camada lê uma das do modelo (KV compartilhado)",
    "transformers.assistant_weights": "o modelo assistente {name} em {precision}: {bytes}",
    "transformers.assistant_kv": "o cache próprio do assistente, de {seq} tokens em {precision}: {bytes}",
    "transformers.assistant_logits": (
        "geração assistida: os logits fp32 do modelo para {rows} posições × vocabulário {vocab}, e as "
        "{drafted} pontuações guardadas do assistente × {draft_vocab} = {bytes}"
    ),
    "vllm.drafter_buffers": (
        "; os buffers do especulador rascunhador ({batched} {batched:linha|linhas} de estados ocultos do modelo, ids "
        "de tokens e posições; o vLLM os aloca fora do seu orçamento) = {bytes}, {total} ao todo"
    ),
    "vllm.mtp_buffers": (
        "; os buffers do proponente MTP ({batched} {batched:linha|linhas} de estados ocultos, embeddings de entrada, "
        "ids de tokens, "
        "posições e slots; o vLLM os aloca fora do seu orçamento) = {bytes}, {total} ao todo"
    ),
    "vllm.pooling_peak": (
        "o pico de ativações da execução de profiling do vLLM para um modelo de pooling, que faz pooling em vez de "
        "amostrar (sem buffers do tamanho do vocabulário): cerca de 1 GiB para a passagem direta de {batched} tokens "
        "(ajustado aos logs publicados do vLLM V1) = {bytes}"
    ),
    "vllm.encoder_video": (
        "; o perfilamento antes codifica {items} {items:vídeo fictício|vídeos fictícios} de {pairs} pares de quadros, "
        "{tokens} tokens, cerca de {bytes} (estimado), com as saídas ({outputs}) guardadas no forward: pico {peak}"
    ),
    "note.vllm_mm_profile": ("O vLLM codifica imagens (ou vídeos) fictícios com o máximo de tokens ao iniciar, também "
                             "para pedidos só de texto, e dimensiona o pool de KV depois deles: 'só texto' "
                             "(--language-model-only) deixa de fora a parte de visão e eles."),
    "vllm.encoder": (
        "; o perfilamento antes codifica {items} {items:imagem fictícia|imagens fictícias} de {tokens} tokens, cerca "
        "de {bytes} "
        "(estimado), com as saídas ({outputs}) guardadas no forward: pico {peak}"
    ),
    "vllm.logits": "no pico de ativações (os buffers do sampler)",
    "vllm.overhead": (
        "memória fora do torch (contexto CUDA, cuBLAS, NCCL: 0,14 GiB nos logs do vLLM V1) + CUDA graphs (0,4 GiB; "
        "nenhum com --enforce-eager: {eager}) = {bytes}"
    ),
    "llamacpp.split": "{gpu} de {layers} camadas na GPU{output}; os embeddings de tokens e o restante na RAM do "
                      "sistema: {host}",
    "llamacpp.no_output": " (a camada de saída na RAM do sistema)",
    "llamacpp.draft_weights": "o modelo de rascunho {name} em {format}: {bytes} na GPU",
    "llamacpp.draft_kv": "o contexto próprio do rascunho, com as mesmas células, em {type}: {bytes}",
    "llamacpp.drafter_kv": (
        "o rascunhador não guarda cache: lê o do modelo (o llama.cpp compartilha a memória do "
        "alvo com um contexto de rascunho gemma4-assistant)"
    ),
    "llamacpp.draft_compute": "o buffer de cálculo do rascunho: {bytes}",
    "llamacpp.mtp_weights": (
        "com {layers} {layers:camada|camadas} MTP que o llama-server carrega para --spec-type draft-mtp (blk.{first})"
    ),
    "llamacpp.mtp_kv": (
        "o cache próprio do contexto MTP: {layers} {layers:camada|camadas} MTP × {n_seq} × {n_ctx} células em {type} "
        "(-ctkd/-ctvd) "
        "= {bytes} na GPU, {host} na RAM do sistema"
    ),
    "llamacpp.mtp_compute": "o buffer de cálculo do contexto MTP ({n_out} {n_out:linha|linhas} de logits): {bytes}",
    "llamacpp.kv": (
        "{n_seq} × {n_ctx} células (o contexto arredondado para um múltiplo de 256) × K {k} e V {v}, camadas "
        "deslizantes limitadas à janela mais um microlote = {bytes} na GPU, {host} na RAM do sistema"
    ),
    "llamacpp.kv_no_window": (
        "; o llama.cpp não lê janela para esta arquitetura: toda camada guarda o contexto inteiro"
    ),
    "llamacpp.kv_state": "; disso, o estado F32 de {layers} camadas recorrentes, {state} por sequência "
                         "(llama_memory_recurrent)",
    "llamacpp.kv_msa": (
        "; disso, o cache do indexador de {layers} {layers:camada esparsa|camadas esparsas} (llama_kv_cache_msa): "
        "uma chave de {key} valores no tipo de K e um valor não lido de {value} no tipo de V por célula, "
        "{bytes} por sequência"
    ),
    "llamacpp.embedding_compute": (
        "o buffer de computação que o llama.cpp reserva para o seu grafo --embedding de {n} tokens e {seqs} "
        "sequências (flash attention {flash}): as entradas, a máscara tokens × tokens, e o momento da atenção ou o da "
        "FFN, o maior (medido ao byte num build para CPU) = {bytes}"
    ),
    "llamacpp.compute": (
        "o buffer de computação que o llama.cpp reserva para um microlote de {n_ub} tokens (flash attention {flash}): "
        "o maior entre os escores de atenção e os logits de {n_out} {n_out:linha|linhas}{copy} = {bytes}"
    ),
    "llamacpp.clip": (
        "; + o buffer de computação do mmproj para uma imagem de {patches} patches (ao menos a imagem de aquecimento "
        "do clip.cpp; estimado){ram} = {bytes}"
    ),
    "llamacpp.clip_ram": ", na RAM do sistema",
    "llamacpp.op_offload": (
        ", com uma cópia do maior peso na RAM do sistema ({bytes}), que ele multiplica na GPU para microlotes de 32 "
        "tokens ou mais (op offload)"
    ),
    "llamacpp.logits": "no buffer de computação",
    "llamacpp.overhead": "contexto da GPU e driver (CUDA ou ROCm), como o Ollama os reserva (457 MiB) = {bytes}",
    "llamacpp.overhead_metal": "contexto da GPU e driver (Metal), como o Ollama os reserva num Mac (512 MiB) = {bytes}",
    "master_weights.formula": "{params} parâmetros × 4 bytes (cópia em fp32 mantida pela precisão mista) = {bytes}",
    "master_weights.none": "só no treinamento com precisão mista",
    "kv_cache.formula": "{batch} × ({layers}) × {bits} bits ({precision})",
    "kv_cache.layers.full": "{count} {count:camada|camadas} × {per_token} × {kept} tokens",
    "kv_cache.layers.sliding": (
        "{count} {count:camada deslizante|camadas deslizantes} × {per_token} × {kept} tokens (janela {window})"
    ),
    "kv_cache.layers.chunked": (
        "{count} {count:camada|camadas} em blocos × {per_token} × {kept} tokens (bloco {window})"
    ),
    "kv_cache.layers.cross": (
        "{count} {count:camada|camadas} de atenção cruzada × {per_token} × {kept} tokens de visão ({images} "
        "{images:imagem|imagens}, cada uma os patches e tokens de classe dos seus blocos, seja qual for o texto)"
    ),
    "kv_cache.indexer": (
        " + {batch} × as chaves do indexador (lightning indexer; {head_dim} valores por token e camada): {bytes}"
    ),
    "kv_cache.linear": " + {batch} × {count} camadas de atenção linear × um {state} fixo (estado recorrente fp32 + "
                       "janela de convolução)",
    "kv_cache.no_attention": "0 (nenhuma camada tem atenção)",
    "kv_cache.conv": " + {batch} × {count} camadas de convolução × um {state} fixo (as suas últimas entradas)",
    "kv_cache.cca": " + {batch} × {count} camadas × um {state} fixo (a janela de convolução da CCA sobre q e k e a "
                    "metade do valor do token anterior)",
    "kv_cache.mamba": " + {batch} × {count} camadas Mamba × um {state} fixo (estado SSM fp32 + janela de convolução)",
    "kv_cache.kv_width_v": "{kv_heads} cabeças KV × ({head_dim} para K + {v_dim} para V)",
    "kv_cache.kv_width": "2 (K e V) × {kv_heads} cabeças KV × {head_dim}",
    "kv_cache.k_is_v": "uma cabeça de {head_dim} (suas chaves são seus valores)",
    "kv_cache.layers.compressed": (
        "{values} valores dos compressores (uma entrada a cada {csa} tokens com a chave do indexador, a cada {hca} "
        "tokens, e as janelas não concluídas)"
    ),
    "kv_cache.mla_width": "um latente MLA de {width}",
    "kv_cache.none": "o treinamento roda sem cache KV",
    "kv_cache.speech": (
        "{rows} {rows:linha|linhas} (janelas × feixes) × {layers} camadas do decodificador: K e V da atenção cruzada "
        "sobre "
        "{frames} quadros, autoatenção sobre {tokens} tokens = {bytes}"
    ),
    "activations.speech": (
        "generate sobre {batch} {batch:janela|janelas} × {beams} {beams:feixe|feixes}, como medido com transformers: "
        "o momento do "
        "codificador {encode}, o do decodificador {decode} (com a sua cache); os atributos log-mel de "
        "{windows} {windows:janela|janelas} por áudio {features} = {bytes}"
    ),
    "logits.speech": "os logits de cada passo contam no momento do decodificador",
    "weights.whisper_cpp": (
        "whisper.cpp: matrizes em {type}, convoluções em {conv}, posições, normas e vieses em f32 = {bytes}"
    ),
    "kv_cache.whisper_cpp": (
        "whisper.cpp: kv_self {self_bytes} (as suas células × (decodificadores + 2) com {beams} feixes e "
        "best_of 5), kv_cross {cross}, kv_pad {pad} = {bytes}"
    ),
    "activations.whisper_cpp": (
        "buffers de cálculo do whisper.cpp (o alocador do ggml sobre cada grafo, flash attention {flash}): "
        "conv {conv}, encode {encode}, cross {cross}, decode {decode} = {bytes}"
    ),
    "note.whisper_cpp": (
        "Um modelo Whisper no llama.cpp é contado como o whisper.cpp o executa, os seus buffers de cálculo na "
        "ordem dos grafos do ggml em CUDA; Metal e Vulkan reordenam os grafos do codificador e guardam mais."
    ),
    "kv_cache.encoder": "um codificador não guarda cache KV",
    "llamacpp.input_ram": "; menos a camada de entrada (embeddings) na RAM: {bytes}",
    "logits.reranker": (
        "os logits de todas as {tokens} posições, que o AutoModelForCausalLM calcula antes de ler os da última, "
        "ao lado da saída da norma final: {tokens} × (vocabulário {vocab} + largura {hidden}) × {e} B = {moment} "
        "(medido); acima do pico das camadas: {bytes}"
    ),
    "logits.embedding": "um vetor (ou nota) por sequência: sem logits",
    "activations.alibi": (
        " + a tabela ALiBi que o código do JinaBERT monta ao carregar, {heads} × {side}² valores = {bytes}"
    ),
    "activations.rotary_cache": (
        " + o cos e o sin que o código do GTE monta ao carregar, 2 × {rows} × {width} valores = {bytes}"
    ),
    "activations.embedding_vllm": (
        "um passo de {tokens} tokens (max_num_batched_tokens) no executor de pooling do vLLM: os pedidos "
        "concatenados, FlashAttention sobre o trecho de cada um, sem termo seq × seq; lido do código do vLLM = {bytes}"
    ),
    "activations.embedding": "uma passada de {batch} × {seq} tokens ({engine}), como medida com transformers = {bytes}",
    "activations.training": (
        "{batch} × {seq} tokens × ({layers_kept} {full:camada|camadas} × {per_layer} B/token/camada{recompute} "
        "+ {outside} B/token fora das camadas){constant} = {bytes}; atenção {attention}, {checkpointing}"
    ),
    "activations.recompute": " + 1 camada recomputada na passagem reversa, a {per_layer_full} B/token",
    "activations.average": "{average} (média das camadas densas e MoE)",
    "activations.constant": " + {constant_bytes} compartilhados pelo lote (tabelas do RoPE, posições)",
    "activations.inference": (
        "pico de uma camada durante um prefill de {seq} tokens: {batch} × {seq} tokens × {per_token} B/token "
        "(atenção {attention}) = {bytes}; as camadas rodam uma após a outra, então só os temporários de uma camada "
        "estão em uso"
    ),
    "logits.fused": (
        "entropia cruzada fundida (Liger): os logits de {chunk} tokens por vez × vocabulário de {vocab} × (fp32 + "
        "tipo de computação), mais o gradiente fp32 dos estados ocultos dos {tokens} tokens = {bytes}"
    ),
    "logits.chunked": (
        "saída em blocos do torchtune ({chunks} blocos): {tokens} tokens × {vocab} de vocabulário × {per_value} B "
        "(o log-softmax fp32 de cada bloco guardado para a loss + os logits em {precision}, apagados depois dela) = "
        "{bytes}"
    ),
    "logits.chunked_compiled": (
        "saída em blocos do torchtune ({chunks} blocos), com a loss compilada: {tokens} tokens × {vocab} de "
        "vocabulário × {e} B (os logits em {precision} que a loss compilada guarda) + 8 B por token = {bytes}"
    ),
    "logits.training": (
        "{batch} × {seq} tokens × vocabulário de {vocab} × {per_value} B "
        "(log-softmax fp32 mantido para a perda + os logits {precision} retornados) = {bytes}"
    ),
    "logits.inference": "{batch} × vocabulário de {vocab} × 4 B (logits fp32 apenas da última posição) = {bytes}",
    "overhead.default": (
        "contexto CUDA, workspaces do cuBLAS e folga do alocador: {gib} GiB, o padrão do transformers onde nada foi "
        "publicado para a placa (não é uma medida)"
    ),
    "overhead.card": (
        "contexto CUDA e kernels carregados {context} ({basis}) + workspace do cuBLAS {workspace} = {bytes}, o "
        "padrão do transformers nas placas {arch}"
    ),
    "overhead.basis.runs": "mediana de {runs} {runs:execução publicada|execuções publicadas}",
    "overhead.basis.bare": "o contexto vazio publicado, acima da mediana de {runs} execuções",
    "overhead.reserve": "com {bytes} que outros programas já ocupam na GPU (reserve_gb)",
    "overhead.given": "{bytes}, definido por você (padrão do {runtime}: {default})",
    "overhead.formula": "contexto CUDA, workspaces do cuBLAS e folga do alocador: {gib} GiB, definido por você "
                        "(padrão 1 GiB)",
    # checkpointing and attention in words
    "checkpointing.none": "sem checkpointing",
    "checkpointing.layer": "checkpointing por camada (entradas das camadas mantidas)",
    "checkpointing.sqrt": "checkpointing sqrt(L): {segments} segmentos de {segment_layers} camadas",
    "attention.eager": "eager",
    "attention.flash": "flash",
    # notes
    "note.no_bf16_fp32": (
        "A {gpu} (capacidade de computação 7.5) não tem bfloat16, e o vLLM recusa float16 para {model_type} "
        "(instabilidade numérica, config/model.py): carrega o modelo em float32, o dobro dos bytes de pesos mostrados "
        "aqui. Escolha a precisão fp32 para contar isso."
    ),
    "note.dequantised_fp8": (
        "O transformers só executa pesos {format} em capacidade de computação 8.9 ou superior (Ada, Hopper, "
        "Blackwell): na {gpu} ({capability}) desquantiza para bf16 ao carregar um checkpoint publicado em FP8 (e deixa "
        "um de 16 bits sem quantizar), por isso os pesos são contados aqui a 16 bits. O vLLM mantém pesos FP8 a partir "
        "de 7.5 (Marlin)."
    ),
    "note.mxfp4_kernels": (
        "O transformers só mantém pesos MXFP4 onde o pacote kernels (kernels 0.18.2 ou posterior, antes de kernels "
        "0.19, para o transformers 5.23) e o Triton 3.4 ou posterior (Triton 3.5 em XPU e CPU) estão instalados: sem "
        "eles desquantiza-os para bf16 ao carregar, {bf16} de pesos em vez de {kept} (quantizer_mxfp4.py). Num Strix "
        "Halo de 64 GB, o playbook da AMD ficou sem memória até o kernels ser fixado (amd/playbooks #792, #882)."
    ),
    "note.dequantised_mxfp4": (
        "O transformers só executa pesos {format} em CUDA (capacidade de computação 7.5 ou superior), XPU e CPU: na "
        "{gpu} ({capability}) desquantiza-os para bf16 ao carregar, por isso os pesos são contados aqui a 16 bits."
    ),
    "note.no_bf16": (
        "A {gpu} (capacidade de computação 7.5) não tem bfloat16: o Unsloth escolhe float16 nela, o Trainer do "
        "transformers recusa treino em bf16, e o vLLM converte um checkpoint bf16 para float16 (Gemma 2 e 3 para "
        "float32) e recusa --dtype bfloat16. float16 também tem 2 bytes, então a memória é a mostrada; a velocidade "
        "é a taxa FP16."
    ),
    "note.bnb_experts": (
        "O transformers 5 converte para bitsandbytes só as camadas nn.Linear: os especialistas roteados, "
        "guardados como tensores fundidos, ficam em bf16 (bitsandbytes#1849; o transformers 4 e o Unsloth os "
        "convertem)."
    ),
    "note.counter": (
        "Compare com o nvidia-smi, que conta a linha de sobrecarga (torch.cuda.max_memory_allocated: o total menos "
        "essa linha) e os blocos reservados livres do alocador, aqui de fora: 0–51 % da memória alocada em "
        "relatórios publicados de falta de memória (mediana 1,9 %)."
    ),
    "note.counter_reserved": (
        "Compare com o nvidia-smi, que conta a linha de sobrecarga e a reserva do alocador: "
        "torch.cuda.max_memory_reserved mostraria cerca de {reserved} ({low} a {high} de reserva, simulada), "
        "o nvidia-smi cerca de {smi}."
    ),
    "note.seq_over_context": "O comprimento da sequência, {seq:,}, é maior que o contexto do modelo, de {context:,} "
                             "tokens.",
    "note.weights_file": "Os pesos são os de {name}, como o seu cabeçalho os lista: {bytes}, tensor a tensor.",
    "note.weights_file_apart": (
        "O arquivo também contém {bytes} de tensores que esta resposta não conta: uma torre de visão ou de "
        "áudio, ou camadas de predição de vários tokens, que os motores só carregam quando pedido."
    ),
    "note.gte_remote": (
        "O código do GTE no hub (model_type new, trust_remote_code) roda no transformers 5 com atenção eager, seja "
        "qual for o attn_implementation: seus escores crescem com o quadrado da sequência."
    ),
    "note.encoder_training": "O treino de um codificador é estimado como o de um decodificador; a inferência é medida.",
    "note.ppo": ("PPO: os modelos de valor e de recompensa são tomados com a arquitetura da política, como o exemplo "
        "do TRL os carrega; atenção como a FlashAttention-2 a executa (o SDPA com prompts preenchidos repete K e V e "
        "guarda uma máscara)."),
    "note.moe": "Mistura de especialistas: todos os {total} parâmetros ficam na memória; {active} são usados por "
                "token.",
    "note.quantised": "Pesos em {precision}: {bits} bits nominais por peso, sem as escalas de quantização (+0,1–0,5 "
                      "bit em GPTQ, AWQ, GGUF).",
    "note.assumption": "Premissa: {text}",
    "note.videos": (
        "{videos} {videos:vídeo|vídeos} de {seconds} s, quadros de {width} × {height} pixels tomados a {fps} por "
        "segundo, por pedido {videos:virou|viraram} {tokens:,} {tokens:token|tokens} de cada sequência, "
        "{tokens:contado|contados} no seu comprimento"
    ),
    "note.images": (
        "{images} {images:imagem|imagens} de {width} × {height} pixels por pedido {images:virou|viraram} {tokens:,} "
        "{tokens:token|tokens} de cada sequência, {tokens:contado|contados} no seu comprimento (o cache KV e o "
        "prefill)"
    ),
    "note.mla": (
        "Atenção latente multi-cabeça: o cache guarda um latente comprimido por token e camada, como fazem o vLLM, "
        "o SGLang, o llama.cpp e o Hugging Face transformers (5.15 em diante); versões mais antigas do transformers "
        "guardavam no cache as chaves e os valores descomprimidos por cabeça, cerca de 70 vezes mais."
    ),
    "note.linear_training": (
        "Camadas de atenção linear: as ativações são o que o transformers salva com seus próprios kernels PyTorch "
        "(medido); com os kernels do flash-linear-attention instalados, boa parte delas é recomputada."
    ),
    "note.llamacpp_rpc": (
        "Um Mac tem uma GPU: vários Macs rodam um modelo pelo backend RPC do llama.cpp (rpc-server em cada um, --rpc "
        "no que serve), cada um com sua parte das camadas, como mostrado; a rede entre eles não entra na velocidade."
    ),
    "note.no_experts_to_move": (
        "Este modelo não tem especialistas roteados: --n-cpu-moe e --cpu-moe não movem nada para a RAM do sistema "
        "(só casam com os tensores ffn_*_exps). Para manter camadas na RAM, use --gpu-layers."
    ),
    "note.ollama": (
        "O Ollama roda o llama.cpp com padrões próprios: um contexto de 4.096 tokens (da v0.6.7 à v0.15.4; desde a "
        "v0.15.5, escolhido pela VRAM: 4.096 abaixo de 23 GiB, 32.768, ou 262.144 a partir de 47 GiB) e uma sequência "
        "por vez; o llama-server dá a 4 slots um único contexto compartilhado. Ajuste o comprimento da sequência e as "
        "sequências paralelas de acordo."
    ),
    "note.vllm_fit": (
        "O vLLM reserva a sua fração de utilização da placa, qualquer que seja a requisição: a tabela abaixo mostra "
        "do que as sequências pedidas precisam; o pool e a concorrência acima são o que o vLLM rodaria na placa "
        "escolhida."
    ),
    "note.native_format": "O checkpoint publicado armazena {format}; os pesos acima estão na precisão escolhida.",
    "note.native_format_used": (
        "Os pesos são os do checkpoint como publicado: {format}. Escolha um formato para dimensioná-lo de outro modo."
    ),
    "note.gguf_mxfp4_experts": (
        "Os arquivos GGUF do gpt-oss mantêm os especialistas em MXFP4 como publicados, qualquer que seja o tipo "
        "(o MXFP4 da ggml-org, os Q4_K_M, Q8_0 e F16 da unsloth e do bartowski): o tipo define só a atenção, os "
        "embeddings e a cabeça de saída. O llama-quantize padrão só requantizaria os especialistas com "
        "--allow-requantize."
    ),
    "assumption.training_unmeasured": (
        "as ativações de treinamento das camadas {model_type} são estimadas com os termos do estilo Llama e não foram "
        "conferidas com uma execução medida (pesos, gradientes, estado do otimizador e cache KV são exatos)"
    ),
    "assumption.mamba_activations": (
        "os temporários do prefill nas camadas recorrentes (Mamba, convoluções curtas, Kimi Delta Attention) são "
        "estimados, não medidos (os pesos, o cache KV e o estado recorrente são exatos)"
    ),
    "assumption.altup_activations": (
        "os temporários do prefill dos fluxos AltUp, dos blocos Laurel e das entradas por camada do Gemma 3n são "
        "estimados, não medidos (o cache KV é exato)"
    ),
    "assumption.kv_shared_weights": (
        "este motor também carrega os pesos K/V das {count} camadas que reutilizam o K/V de uma camada anterior, que "
        "o transformers não cria: {params} parâmetros a mais que os pesos mostrados"
    ),
    "assumption.dsv4_activations": (
        "os temporários dos compressores, do indexador e das hiperconexões do DeepSeek-V4 são estimados, não "
        "medidos (pesos e cache KV são exatos)"
    ),
    "assumption.hy4": (
        "os temporários dos {streams} fluxos residuais do Hy4 são estimados, não medidos, e o transformers mantém "
        "{params} dos seus parâmetros (a cabeça, os pesos de mistura dos fluxos, sinks, pesos do indexador) em fp32, "
        "contados aqui na precisão dos pesos"
    ),
    "assumption.hy4_vllm": (
        "o código do próprio vLLM (como guardado) não tem o modelo Hy4: seu cache é lido como um plugin (vllm_fl) o "
        "guarda, o do GLM-5.2: o latente MLA em toda camada e o DeepseekV32IndexerCache nas camadas \"full\" de "
        "indexer_types"
    ),
    "assumption.dsv4_vllm": (
        "o vLLM guarda o cache do DeepSeek-V4 só em fp8 (fp8_ds_mla, 584 bytes por entrada de 512), suas janelas, "
        "entradas comprimidas e estados dos compressores em páginas próprias: aqui ele é estimado pelas formas do "
        "transformers na precisão de cache escolhida"
    ),
    "assumption.llamacpp_pipeline": (
        "o llama.cpp roda todas as camadas em várias GPUs com paralelismo de pipeline, cujo escalonador guarda cópias "
        "dos buffers de computação: medidos 1,25-2,3x a linha de computação aqui em dois dispositivos; pesos e cache "
        "são exatos"
    ),
    "assumption.llamacpp_unsupported": (
        "o llama.cpp não tem arquitetura para {model_type}: nenhum GGUF dele roda; a resposta é o que um exigiria"
    ),
    "assumption.lora_moe_experts": "LoRA all-linear numa mistura de especialistas adapta aqui as camadas lineares "
                                   "da atenção e do MLP denso / compartilhado; o peft 0.21 com o transformers 5 "
                                   "também envolve os tensores fundidos dos especialistas e o roteador "
                                   "(ParamWrapper), que esta contagem deixa de fora.",
    "assumption.lora_activations": (
        "LoRA nesta arquitetura: as ativações são contadas como no fine-tuning completo, sem conferência com uma "
        "execução medida (os modelos densos com RMSNorm foram conferidos); camadas congeladas não guardam entradas "
        "para os gradientes dos seus pesos, então o valor real é um pouco menor"
    ),
    "approximate.title": "Aproximado: esta configuração não é totalmente compreendida",
    # ------------------------------------------------------------ the page (index.html, main.py, present.py)
    "page.title": "Calculadora de VRAM da GPU para modelos transformer",
    "page.heading": "Vai caber? Calculadora de VRAM da GPU",
    "page.lead": (
        "Quanta memória de GPU um transformer precisa para rodar ou treinar, componente por componente. Tudo é "
        "calculado no seu navegador, em Python; nada do que você digita sai desta página."
    ),
    "page.update": "Uma nova versão desta página está pronta.",
    "page.reload": "Recarregar",
    "page.status.booting": "Iniciando o Python… os números abaixo já estão corretos para as configurações padrão.",
    "page.status.progress": "Iniciando o Python ({n}/4): {step}… os números abaixo já estão corretos para as "
                            "configurações padrão.",
    "boot.1": "baixando o ambiente de execução",
    "boot.2": "iniciando o interpretador",
    "boot.3": "carregando a calculadora",
    "boot.4": "conectando o formulário",
    "page.status.ready": "O Python está rodando: os resultados se atualizam enquanto você digita.",
    "page.copy_link": "Copiar link",
    "page.copied": "Link copiado.",
    "page.copy_failed": "Copie a barra de endereço para compartilhar esta configuração.",
    "page.stale": "Estes resultados são da sua última entrada válida.",
    "page.stale_fields": "A corrigir: {fields}.",
    "page.stale_short": " (desatualizado)",
    "page.stale_boot": (
        "O Python ainda está iniciando: estes resultados são das configurações antes das suas mudanças; eles as "
        "acompanham assim que ele estiver pronto."
    ),
    "page.remembered_ignored": "Ignorada a placa lembrada neste navegador: {problem}",
    "page.start_error": (
        "Parte do link ou da placa lembrada neste navegador não pôde ser lida ({kind}); ela foi ignorada."
    ),
    "page.imported": "Importado: {name}",
    "page.internal_error": (
        "Algo deu errado na calculadora ({kind}); os números mostrados são da sua última entrada que funcionou. "
        "Por favor, informe o problema enviando o link."
    ),
    "page.footer": (
        "Tamanhos: GB = 10⁹ bytes, GiB = 2³⁰ bytes. Funciona offline depois de carregada; o que você digita fica na "
        "página e no link dela."
    ),
    "legend.model": "Modelo",
    "legend.workload": "Carga de trabalho",
    "legend.training": "Treinamento",
    "field.model_search.label": "Buscar um modelo",
    "field.model_search.help": "Digite parte de um nome ou um id do Hugging Face; {count} modelos, agrupados por "
                               "família.",
    "model_search.found": "{count} resultado; mostrando {first}.",
    "model_search.found_many": "{count} resultados; mostrando o melhor, {first}.",
    "model_search.none": "Nenhum modelo corresponde; a lista mostra todos.",
    "model_search.base": (
        "Sem predefinição própria: um ajuste fino ou checkpoint base tem a arquitetura do seu modelo, então este é o "
        "{first}."
    ),
    "model.facts": "{hf_id} · {params} parâmetros · contexto {context} · {architecture}",
    "model.facts.native": " · checkpoint: {format}",
    "field.model.label": "Modelo",
    "field.model.help": "Uma predefinição, seus próprios números ou um config.json do Hugging Face (abaixo).",
    "field.params.label": "Parâmetros (bilhões)",
    "field.params.help": "Total de parâmetros, por exemplo 7 para um modelo de 7B. Obrigatório.",
    "field.hidden.label": "Dimensão oculta",
    "field.hidden.help": "Largura do modelo, por exemplo 4096. Obrigatório.",
    "field.layers.label": "Camadas",
    "field.layers.help": "Camadas do transformer, por exemplo 32. Obrigatório.",
    "field.heads.label": "Cabeças de atenção",
    "field.heads.help": "Opcional; padrão: dimensão oculta / 128.",
    "field.kv_heads.label": "Cabeças KV",
    "field.kv_heads.help": "Opcional; padrão = cabeças de atenção (atenção multi-cabeça).",
    "field.vocab.label": "Vocabulário",
    "field.vocab.help": "Opcional; padrão 32.000.",
    "field.ffn.label": "Tamanho da FFN",
    "field.ffn.help": "Opcional; padrão: cerca de 8 × dimensão oculta / 3.",
    "field.mode.label": "Modo",
    "field.precision.label": "Precisão dos pesos",
    "field.precision.help": (
        "Como os pesos são armazenados. Os tipos GGUF são dimensionados tensor a tensor, como o quantizador do "
        "llama.cpp os grava; os formatos de GPU incluem as suas escalas e pontos zero; os int8/int4/int2 nominais "
        "contam só os bits."
    ),
    "format_group.nominal": "Nominal (todos os parâmetros, sem escalas)",
    "format_group.gguf": "GGUF (llama.cpp, Ollama, LM Studio)",
    "format_group.gpu": "Formatos de GPU (vLLM, transformers)",
    "format_group.exl": "EXL2 / EXL3 bits por peso",
    "format_group.native": "O formato nativo do checkpoint",
    "format_group.auto": "Como publicado (o próprio formato se quantizado, senão bf16)",
    "gpu_group.cards": "Placas de vídeo",
    "gpu_group.apple": "Apple Silicon (memória unificada, fração da GPU)",
    "field.wired_limit_mb.label": "iogpu.wired_limit_mb (MiB)",
    "field.wired_limit_mb.help": (
        "O macOS deixa a GPU fixar (wire) só parte da memória (o recommendedMaxWorkingSetSize do Metal); "
        "`sudo sysctl iogpu.wired_limit_mb=N` aumenta esse limite. Vazio ou 0: o padrão."
    ),
    "field.macos.label": "Versão do macOS",
    "field.macos.help": "A fração padrão mudou no macOS 26 (cerca de 3/4 da RAM antes, 74–84% a partir do 26).",
    "field.recipe.label": "Receita de treinamento",
    "field.recipe.help": (
        "Como pesos, gradientes e estado do otimizador são mantidos: fp32; bf16 puro (estado do Adam também em bf16); "
        "amp = pesos fp32 sob autocast (bf16=True do Trainer do Hugging Face); mista = pesos de 16 bits com "
        "gradientes e cópia mestra em fp32 (Megatron, DeepSpeed: 18 B por parâmetro com Adam)."
    ),
    "option.recipe.": "pesos na precisão acima (+ cópia mestra, se marcada)",
    "option.recipe.fp32": "fp32",
    "option.recipe.bf16": "bf16 / fp16 puro",
    "option.recipe.amp": "amp: pesos fp32, autocast",
    "option.recipe.mixed": "mista: pesos de 16 bits, gradientes fp32 + cópia mestra",
    "option.optimizer.adamw-8bit": "AdamW de 8 bits (bitsandbytes)",
    "option.optimizer.paged-adamw-8bit": "AdamW de 8 bits paginado",
    "option.optimizer.paged-adamw": "AdamW paginado",
    "option.optimizer.adafactor": "Adafactor",
    "option.optimizer.lion": "Lion",
    "field.lora_rank.label": "Rank do LoRA",
    "field.lora_rank.help": "0: fine-tuning completo. Com pesos nf4 ou nf4-dq: QLoRA.",
    "field.lora_targets.label": "Alvos do LoRA",
    "field.lora_targets.help": ("all-linear (toda camada linear menos a cabeça de saída), all-linear,head, ou alguns "
        "de q,k,v,o,gate,up,down,head (separados por vírgula; head: LoRA na cabeça de saída, o lora_head do litgpt)."),
    "field.lora_dropout.label": "Dropout do LoRA",
    "field.lora_dropout.help": "O lora_dropout do peft (0 por padrão): acima de 0, cada camada adaptada guarda uma "
                               "máscara e uma cópia.",
    "field.lora_dtype.label": "dtype dos adaptadores",
    "field.lora_dtype.help": "O peft converte os adaptadores para fp32 por padrão, e o Unsloth também; o torchtune e "
                             "o LitGPT os mantêm em bf16.",
    "option.lora_dtype.fp32": "fp32 (padrão do peft)",
    "option.lora_dtype.bf16": "bf16",
    "option.lora_dtype.fp16": "fp16",
    "field.lora_embeddings.label": "Treinar também os embeddings e a cabeça de saída",
    "field.lora_embeddings.help": "Por inteiro, como faz o modules_to_save do peft.",
    "field.grad_accum.label": "Acumulação de gradientes",
    "field.grad_accum.help": "Passos por atualização; a memória acompanha o microlote (o tamanho do lote acima).",
    "field.objective.label": "Objetivo",
    "field.objective.help": (
        "sft: ajuste supervisionado; dpo: o DPO do TRL, respostas escolhida e rejeitada numa "
        "passagem; grpo: o GRPO do TRL, respostas geradas e depois avaliadas (o lote conta respostas); rloo: o RLOO "
        "do TRL, o passo do GRPO com a política antiga avaliada a cada geração e uma referência por padrão; kto: o KTO "
        "do TRL, respostas avulsas marcadas como desejáveis ou não (o lote as conta, ao menos 2), com um lote KL de "
        "pares trocados; orpo: o ORPO do TRL, respostas escolhida e rejeitada numa passagem, sem modelo de "
        "referência; ppo: o PPO do TRL, lote × acumulação prompts no rollout, depois a política e um modelo de valor "
        "treinados, com modelos de referência e de recompensa ao lado."
    ),
    "option.objective.sft": "Supervisionado (SFT)",
    "option.objective.dpo": "Preferência (DPO)",
    "field.reference.label": "Modelo de referência (DPO, KTO, GRPO, RLOO, PPO)",
    "field.reference.help": (
        "Uma cópia congelada, a política com os adaptadores desligados (LoRA) ou log-probabilidades "
        "calculadas antes."
    ),
    "option.reference.": "como o TRL escolhe",
    "option.reference.copy": "uma cópia congelada",
    "option.reference.adapters-off": "adaptadores desligados",
    "option.reference.precomputed": "calculadas antes",
    "option.reference.none": "nenhum (GRPO, RLOO: beta 0)",
    "option.objective.grpo": "Reforço (GRPO)",
    "option.objective.rloo": "Reforço, deixando um de fora (RLOO)",
    "option.objective.kto": "Preferência avulsa (KTO)",
    "option.objective.orpo": "Preferência sem referência (ORPO)",
    "option.objective.ppo": "Reforço com modelo de valor (PPO)",
    "field.local_rollout_forward_batch_size.label": "Bloco do rollout",
    "field.local_rollout_forward_batch_size.help": ("O local_rollout_forward_batch_size do PPO: prompts gerados e "
        "avaliados de uma vez (64)."),
    "field.num_ppo_epochs.label": "Épocas do PPO",
    "field.num_ppo_epochs.help": "Passagens sobre cada rollout, um passo do otimizador cada (4); a memória não muda.",
    "field.num_generations.label": "Respostas por prompt",
    "field.num_generations.help": ("O num_generations do GRPO e do RLOO (vazio: o do TRL, 8 no GRPO e 2 no RLOO); "
        "deve dividir lote × GPUs × acumulação (ou × passos por geração) e não muda a memória."),
    "field.completion_tokens.label": "Tokens da resposta",
    "field.completion_tokens.help": ("O max_completion_length do GRPO e do RLOO, o response_length do PPO (53 no TRL), "
        "parte do comprimento da sequência."),
    "field.num_iterations.label": "Atualizações por geração",
    "field.num_iterations.help": ("O num_iterations (μ) do TRL: cada lote de respostas é treinado esse número de "
        "vezes; acima de 1, a política antiga é avaliada sem gradientes depois de gerar."),
    "field.steps_per_generation.label": "Passos por geração",
    "field.steps_per_generation.help": ("O steps_per_generation do TRL: micropassos que uma geração atende (vazio: a "
        "acumulação); o lote de geração é o lote × isso."),
    "field.rollout.label": "Geração",
    "field.rollout.help": "O que gera as respostas do GRPO e do RLOO.",
    "option.rollout.transformers": "generate do transformers",
    "option.rollout.vllm-colocate": "vLLM nesta GPU",
    "option.rollout.vllm-colocate-sleep": "vLLM nesta GPU, dormindo durante o treino",
    "option.rollout.vllm-server": "servidor vLLM em outras GPUs",
    "field.vllm_gpu_memory_utilization.label": "Parcela da GPU do vLLM",
    "field.vllm_gpu_memory_utilization.help": "O vllm_gpu_memory_utilization do TRL (0,3).",
    "field.text_only.label": "Só texto (deixar de fora a parte de visão)",
    "field.text_only.help": "Para um modelo que vê imagens: contar só o seu modelo de linguagem.",
    "field.no_mmproj_offload.label": "Projetor na RAM do sistema (--no-mmproj-offload)",
    "field.no_mmproj_offload.help": "O llama.cpp mantém o projetor de visão (mmproj) na CPU em vez da GPU.",
    "field.fused_ce.label": "Entropia cruzada fundida (Liger)",
    "field.fused_ce.help": "Os logits são calculados um bloco de tokens por vez, nunca para o lote inteiro.",
    "legend.engine": "Motor de execução",
    "field.runtime.label": "Roda em",
    "field.runtime.help": "O motor decide a memória além dos pesos: o layout do cache, os buffers e a sobrecarga.",
    "option.runtime.transformers": "Hugging Face transformers (generate)",
    "option.runtime.vllm": "vLLM / SGLang (serviço)",
    "option.runtime.llamacpp": "llama.cpp / Ollama / LM Studio",
    "field.gpu_memory_utilization.label": "Utilização da memória da GPU",
    "field.gpu_memory_utilization.help": "A fração da placa que o vLLM pode usar; o pool de KV ocupa o que sobra. "
                                         "Vazio: o padrão do próprio vLLM 0.34, 1,0, com o pool dimensionado após o "
                                         "aquecimento menos uma margem (0,92 com a estimativa abaixo, como no 0.20 a "
                                         "0.33).",
    "field.no_extensible_kv_cache.label": "Pool de KV estimado (--no-enable-extensible-kv-cache)",
    "field.no_extensible_kv_cache.help": "vLLM 0.34 sem o seu cache de KV extensível: o pool pela estimativa do "
                                         "profiling, como o 0.20 a 0.33 o dimensionava.",
    "field.max_num_batched_tokens.label": "Máx. de tokens por lote",
    "field.max_num_batched_tokens.help": "A execução de profiling do vLLM; vazio: o padrão dele para a placa (2.048 a "
                                         "16.384).",
    "field.max_num_seqs.label": "Máx. de sequências",
    "field.max_num_seqs.help": "O tamanho do sampler do vLLM; vazio: o padrão dele para a placa (256 ou 1.024).",
    "field.enforce_eager.label": "Forçar eager (sem CUDA graphs)",
    "field.enforce_eager.help": "Economiza a memória dos CUDA graphs, à custa de alguma velocidade.",
    "field.gpu_layers.label": "Camadas na GPU",
    "field.gpu_layers.help": "--gpu-layers: primeiro a camada de saída, depois as últimas camadas; vazio: todas. O "
                             "restante roda na RAM do sistema.",
    "field.parallel.label": "Sequências paralelas",
    "field.parallel.help": "--parallel: cada sequência tem o seu próprio contexto, do comprimento da sequência.",
    "field.llamacpp_program.label": "Programa do llama.cpp",
    "field.llamacpp_program.help": (
        "O llama-server reserva logits para uma linha por slot; llama-completion, llama-bench e llama-cpp-python para "
        "o microlote inteiro (um buffer de computação maior)."
    ),
    "option.llamacpp_program.llama-server": "llama-server",
    "option.llamacpp_program.llama-completion": "llama-completion, llama-bench ou llama-cpp-python",
    "field.ubatch.label": "Microlote",
    "field.ubatch.help": "--ubatch-size (512): define o buffer de computação.",
    "field.kv_precision_k.label": "Tipo do cache K",
    "field.kv_precision_k.help": "--cache-type-k; um cache V quantizado exige flash attention.",
    "field.kv_precision_v.label": "Tipo do cache V",
    "field.kv_precision_v.help": "--cache-type-v.",
    "option.kv_precision_kv.same": "igual à precisão do cache KV (f16)",
    "answer.max_parallel": "Máximo de sequências paralelas",
    "answer.best_format": "Pesos mais precisos que cabem",
    "answer.best_kv_format": "Cache KV mais preciso que cabe",
    "answer.format_other_file": "{format} (outro arquivo deste modelo)",
    "answer.format_this_file": "os deste arquivo",
    "answer.format_none": "nenhum dos formatos deste motor",
    "answer.kv_not_applicable": "não se aplica: o treino não guarda cache KV",
    "runtime.vllm": (
        "vLLM em {gpu} a {util:.0%}: ele reserva {claimed}; depois dos pesos, do pico de ativações e da sua "
        "sobrecarga, o pool de KV é de {pool}, {tokens} tokens: {concurrency} {concurrency:sequência|sequências} de "
        "{seq} tokens ao mesmo "
        "tempo."
    ),
    "runtime.vllm_margin": (
        "O vLLM 0.34 o dimensiona após o aquecimento e a captura dos CUDA graphs, a partir do que está livre depois "
        "que o seu contexto CUDA ocupou {context}, deixando {margin} livres além do pico de ativações (o seu cache de "
        "KV extensível: o maior entre 1 GiB, 3 GiB no ROCm, e 0,75 × o pico)."
    ),
    "runtime.vllm_margin_no_context": (
        "O vLLM 0.34 o dimensiona após o aquecimento e a captura dos CUDA graphs, deixando {margin} livres além do "
        "pico de ativações (o seu cache de KV extensível: o maior entre 1 GiB, 3 GiB no ROCm, e 0,75 × o pico); "
        "o que o seu contexto ocupa antes nesta placa não é publicado nem contado: o pool pode ser até cerca de "
        "0,5 GiB menor."
    ),
    "runtime.vllm_gpus": (
        "vLLM em cada uma de {gpus} × {gpu} ({layout}) a {util:.0%}: ele reserva {claimed} em cada; depois da parte "
        "dos pesos dessa GPU, do pico de ativações e da sua sobrecarga, o pool de KV em cada GPU é de {pool}, "
        "{tokens} tokens: {concurrency} {concurrency:sequência|sequências} de {seq} tokens ao mesmo tempo."
    ),
    "runtime.llamacpp": (
        "llama.cpp: {gpu_bytes} na GPU ({layers} de {total} camadas e a saída), {host_bytes} na RAM do sistema; "
        "contexto de {n_ctx} células × {n_seq} {n_seq:sequência|sequências}."
    ),
    "field.group_size.label": "Tamanho do grupo",
    "field.group_size.help": "GPTQ e AWQ: pesos por escala fp16 (padrão 128).",
    "field.kv_precision.label": "Precisão do cache KV",
    "field.kv_precision.help": (
        "Formato das chaves e dos valores em cache: fp8 (vLLM, SGLang), q8_0/q5_1/q4_0 (llama.cpp, tamanhos de bloco "
        "exatos), int8/int4 (bits nominais)."
    ),
    "field.batch.label": "Tamanho do lote",
    "field.batch.help": "Sequências processadas juntas.",
    "field.seq.label": "Comprimento da sequência",
    "field.seq.help": "Tokens por sequência (comprimento do contexto).",
    "legend.layout": "Layout de paralelismo",
    "field.tp.label": "Paralelismo de tensores (tp)",
    "field.tp.help": "Divide cada matriz entre esse número de GPUs; precisa dividir o número de cabeças de atenção. "
                     "Vazio: a inferência usa paralelismo de tensores entre as GPUs.",
    "field.pp.label": "Estágios de pipeline (pp)",
    "field.pp.help": "Divide as camadas em estágios; o primeiro fica com o embedding, o último com a cabeça de saída.",
    "field.dp.label": "Paralelismo de dados (dp)",
    "field.dp.help": "Réplicas, cada uma com o seu próprio microlote. Vazio: as GPUs que sobram (treinamento: ZeRO-3 "
                     "entre elas).",
    "field.ep.label": "Paralelismo de especialistas (ep)",
    "field.ep.help": "Distribui os especialistas de uma mistura de especialistas entre os ranks de paralelismo de "
                     "dados.",
    "field.cp.label": "Paralelismo de contexto (cp)",
    "field.cp.help": "Divide a sequência entre GPUs, para treinamento com contexto longo.",
    "field.vpp.label": "Blocos intercalados por estágio (vpp)",
    "field.vpp.help": "O pipeline intercalado do Megatron: mais microlotes em andamento no primeiro estágio, bolhas "
                      "menores.",
    "field.sp.label": "Paralelismo de sequência (com tp)",
    "field.sp.help": "Particiona também as ativações das normalizações e dos dropouts (Korthikanti et al. 2022).",
    "field.zero.label": "Estágio do DeepSpeed ZeRO",
    "field.zero.help": "1 particiona o estado do otimizador, 2 também os gradientes, 3 também os pesos, entre as GPUs "
                       "de paralelismo de dados. Vazio: 3 quando nenhum layout é definido.",
    "field.fsdp.label": "FSDP",
    "field.fsdp.help": "PyTorch FSDP2: full-shard é o ZeRO-3, shard-grad-op o ZeRO-2, hybrid-shard o ZeRO-3 dentro "
                       "de um nó.",
    "option.fsdp.": "desligado",
    "option.fsdp.full-shard": "full-shard",
    "option.fsdp.shard-grad-op": "shard-grad-op",
    "option.fsdp.hybrid-shard": "hybrid-shard",
    "field.offload.label": "Offload para a memória do host",
    "field.offload.help": "ZeRO-Offload / CPU offload do FSDP: o estado do otimizador (e os gradientes), ou também "
                          "os pesos.",
    "option.offload.none": "nenhum",
    "option.offload.optimizer": "estado do otimizador",
    "option.offload.optimizer+params": "estado do otimizador e pesos",
    "field.optimizer_impl.label": "Implementação do otimizador",
    "field.optimizer_impl.help": "Como a atualização roda: foreach (o padrão do PyTorch numa GPU) copia o segundo "
                                 "momento por um instante; fused (o padrão do Trainer no PyTorch 2.8+) não faz cópias.",
    "option.optimizer_impl.": "a do próprio otimizador",
    "option.optimizer_impl.foreach": "foreach",
    "option.optimizer_impl.fused": "fused",
    "option.optimizer_impl.for-loop": "for-loop",
    "field.optimizer.label": "Otimizador",
    "field.optimizer.help": "Adam(W) guarda 8 bytes por parâmetro; SGD com momento, 4; SGD puro, nenhum.",
    "field.mixed_precision.label": "Precisão mista",
    "field.mixed_precision.help": "Acrescenta a cópia mestra dos pesos em fp32 (4 bytes por parâmetro).",
    "field.checkpointing.label": "Checkpointing de gradiente",
    "field.checkpointing.help": (
        "Por camada guarda a entrada de cada camada e recomputa uma camada por vez; sqrt(L) guarda as entradas dos "
        "segmentos."
    ),
    "field.attention.label": "Atenção",
    "field.attention.help": ("A atenção eager armazena as probabilidades s × s; a FlashAttention (o SDPA do "
                             "transformers, o -fa do llama.cpp), não."),
    "field.reserve_gb.label": "Ocupado por outros programas (GB)",
    "field.reserve_gb.help": (
        "Memória que outros programas já ocupam em cada GPU (um desktop guarda 0,5-1,5 GB): somada à "
        "sobrecarga; o ajuste do próprio llama.cpp vê essa memória a menos livre; o vLLM precisa da sua "
        "fração livre além dela."
    ),
    "field.overhead_gib.label": "Sobrecarga do framework (GiB)",
    "field.overhead_gib.help": (
        "Contexto CUDA e workspaces: 0,3–2 GiB medidos. Vazio: a do próprio motor (transformers 0,4–1 GiB; vLLM, a sua "
        "memória fora do torch e os CUDA graphs; llama.cpp 457 MiB, 512 MiB num Mac)."
    ),
    "field.gpu.label": "GPU",
    "field.cards.label": "Mais placas nesta máquina",
    "field.cards.remove": "Remover",
    "field.cards.add": "Acrescentar outra placa",
    "field.cards.help": "O llama.cpp e o Ollama dividem as camadas pelas placas de uma máquina conforme a memória de "
                        "cada uma; a GPU acima é a CUDA0.",
    "field.draft_model.label": "Modelo de rascunho (decodificação especulativa)",
    "field.draft_model.help": "Um modelo pequeno da mesma família adivinha tokens que o modelo confere: os seus "
                              "pesos e o seu próprio cache (vLLM: no pool do modelo; transformers: uma sequência). "
                              "Um rascunhador do Gemma 4 (assistant) lê o cache do modelo e não guarda nenhum.",
    "option.draft_model.none": "Nenhum",
    "field.draft_precision.label": "Tipo GGUF do rascunho",
    "field.draft_precision.help": "O arquivo do rascunho (q8_0 se não escolhido).",
    "option.draft_precision.default": "q8_0 (padrão)",
    "field.draft_kv_precision.label": "Tipo do cache do rascunho (-ctkd, -ctvd)",
    "field.draft_kv_precision.help": "O cache de um modelo de rascunho ou das camadas MTP; o padrão do llama.cpp é "
                                     "f16, seja qual for o -ctk.",
    "field.draft_gpu_layers.label": "Camadas do rascunho na GPU (-ngld)",
    "field.draft_gpu_layers.help": "Vazio: todas.",
    "field.mtp.label": "Tokens MTP (decodificação especulativa)",
    "field.mtp.help": "Tokens que as camadas de predição de múltiplos tokens do próprio modelo rascunham por passo "
                      "(vLLM método mtp; llama-server --spec-type draft-mtp). Seus pesos, seu cache e as linhas de "
                      "logits a mais são contados. 0: desligado.",
    "field.spec_acceptance.label": "Taxa de aceitação (decodificação especulativa)",
    "field.spec_acceptance.help": "A chance de o modelo aceitar um token rascunhado, de 0 a 1: a velocidade de "
                                  "decodificação decorre dela. Vazio: 0,85 para camadas MTP, 0,7 para um modelo de "
                                  "rascunho.",
    "field.gpu.help": "Memória utilizável como o PyTorch a informa, quando conhecida; num Mac, a fração que a GPU pode "
                      "usar. Qualquer outra placa: gpu=24gb no link (ou --gpu 24gb). Placas diferentes numa máquina "
                      "(llama.cpp e Ollama): acrescente-as abaixo (no link, gpu=rtx-3090,rtx-4060-ti-16gb).",
    "field.gpus.label": "Número de GPUs",
    "field.gpus.help": "Quantas delas. Com mais de uma, defina o layout abaixo ou mantenha o padrão: paralelismo de "
                       "tensores para inferência, paralelismo de dados com ZeRO-3 para treinamento.",
    "field.headroom.label": "Margem (%)",
    "field.headroom.help": "20% por padrão: 1 GiB de sobrecarga mais um cache KV de 8k tokens equivalem a 11–25% de "
                           "uma placa de 16–80 GB.",
    "field.vram.label": "Adicionar um tamanho (GB)",
    "field.vram.help": "Qualquer tamanho de memória, por exemplo 40; a linha dele lista todos os exemplos que cabem.",
    "option.model.custom": "Números personalizados",
    "option.model.config": "config.json importado",
    "option.model.weights": "De um arquivo de pesos",
    "option.kv_precision.same": "igual aos pesos (16 bits se quantizados)",
    "option.mode.inference": "Inferência",
    "option.mode.training": "Treinamento",
    "option.mode.embedding": "Embeddings",
    "option.optimizer.adamw": "AdamW",
    "option.optimizer.adam": "Adam",
    "option.optimizer.sgd-momentum": "SGD com momento",
    "option.optimizer.sgd": "SGD",
    "option.checkpointing.none": "Nenhum",
    "option.checkpointing.layer": "Por camada",
    "option.checkpointing.sqrt": "Segmentos sqrt(L)",
    "option.attention.flash": "Flash / SDPA",
    "option.attention.eager": "Eager",
    "results.command": "O comando para executá-lo",
    "results.expected_log": "O vLLM deverá depois registar aproximadamente estas linhas:",
    "results.copy_command": "Copiar o comando",
    "import.summary": "Importar um config.json ou arquivos de pesos",
    "import.file": "Arquivo config.json",
    "import.paste": "ou cole-o aqui",
    "import.apply": "Usar esta configuração",
    "import.private": "Lido apenas no seu navegador; nunca é enviado.",
    "import.pipeline.summary": "Importar a pasta de um pipeline do diffusers",
    "import.pipeline.folder": "A pasta com o model_index.json",
    "import.pipeline.help": (
        "Só o model_index.json e o config.json de cada parte são lidos, no seu navegador; nunca são enviados (o "
        "navegador pode perguntar se deve \"enviar\" a pasta: nada sai desta página)."
    ),
    "import.pipeline.status": "{name}: {parts}; padrões de {defaults}; não contados: {ignored}",
    "import.weights": "ou arquivos de pesos (.gguf, partes .safetensors): só os cabeçalhos, para pesos exatos",
    "import.weights_clear": "Esquecer o arquivo de pesos",
    "import.hf": "ou um id do Hugging Face (ORG/NOME ou ORG/NOME@revisão), lido quando você pedir",
    "import.hf_button": "Ler o config.json no huggingface.co",
    "import.hf_sends_none": (
        "Nada é enviado até você clicar. O clique pede ao huggingface.co a lista de arquivos do modelo e o seu "
        "config.json, o que lhe diz o id e nada mais."
    ),
    "import.hf_sends": "O clique envia duas requisições ao huggingface.co, e nada mais: GET {info} e GET {config}",
    "page.hf.reading": "Lendo {repo} no huggingface.co…",
    "page.hf.read": "Lido no huggingface.co: {repo} ({revision}); guardado neste navegador para uso offline.",
    "page.hf.read_unsaved": (
        "Lido no huggingface.co: {repo} ({revision}); o armazenamento deste navegador não o guardou."
    ),
    "page.hf.saved": "Não foi possível acessar o huggingface.co ({why}): usada a cópia de {repo} deste navegador.",
    "page.hf.gated": (
        "hf: {repo} é restrito ou privado (o huggingface.co respondeu {status}): aceite os termos lá, baixe o "
        "config.json e cole-o acima."
    ),
    "page.hf.missing": "hf: o huggingface.co não tem o repositório {repo} na revisão {revision} (404).",
    "page.hf.status": "hf: o huggingface.co respondeu {status} para {url}.",
    "page.hf.unreachable": (
        "hf: não foi possível acessar o huggingface.co ({why}); baixe o config.json e cole-o acima, o que funciona "
        "offline."
    ),
    "page.hf.gguf": (
        "hf: {repo} tem arquivos GGUF e nenhum config.json: baixe um e abra-o acima como arquivo de pesos. "
        "Os seus modelos: {files}"
    ),
    "page.hf.pipeline": (
        "hf: {repo} é um pipeline do diffusers (model_index.json), não um modelo de linguagem: escolha “Imagem ou "
        "vídeo” e importe lá a sua pasta baixada, ou rode vramcalc diffusion --hf {repo}."
    ),
    "page.hf.no_model": (
        "hf: {repo} não tem config.json nem arquivo GGUF: não é um modelo de linguagem que esta página lê."
    ),
    "page.hf.not_json": "hf: o que o huggingface.co enviou para {url} não é JSON.",
    "link.hf": "Este link cita o modelo {repo} do Hugging Face: clique em “{button}” em “{where}” para lê-lo. "
               "Nada foi requisitado.",
    "page.weights": "Pesos: {name}",
    "results.total": "Total",
    "results.bar_title": "Divisão da memória",
    "results.breakdown_caption": "Divisão (GiB = 2³⁰ bytes)",
    "results.col.component": "Componente",
    "results.col.size": "Tamanho",
    "results.col.share": "Parcela",
    "results.col.how": "Como é calculado",
    "results.summary_speech": (
        "{model}, {mode}, {precision}, {beams} feixes, {seconds:,} s de áudio ({windows} × 30 s, {batch} "
        "de cada vez)"
    ),
    "results.header_speech": (
        "{mode}, {precision}, {beams} feixes, {seconds:,} s de áudio ({windows} × 30 s, {batch} de cada vez)"
    ),
    "results.summary": "{model}, {mode}, {precision}, lote {batch}, {seq:,} tokens",
    "results.params": "{count} parâmetros",
    "results.active": " ({count} ativos por token)",
    "gpus.title": "Em quais GPUs cabe",
    "gpus.caption": "A memória utilizável de uma GPU (o que o PyTorch enxerga, quando conhecido), o seu uso e quantas "
                    "GPUs o layout padrão exige (paralelismo de tensores para inferência, ZeRO-3 para treinamento)",
    "gpus.col.gpu": "GPU",
    "gpus.col.memory": "Memória",
    "gpus.col.use": "Uso de uma GPU",
    "gpus.col.needed": "Quantas GPUs",
    "gpus.col.verdict": "Veredito",
    "gpus.marketed": "({marketed} GB anunciados)",
    "reverse.title": "O que cabe em uma placa, ou em várias",
    "reverse.heading": "Em {target} ({memory} cada)",
    "reverse.heading_split": "Em {target} ({memory} cada), com o layout {layout}",
    "layout.assumed": "{layout}, presumido ({why}): defina o layout para mudá-lo",
    "layout.default_inference": "paralelismo de tensores com o maior grau que divide as cabeças, estágios de pipeline "
                                "para o restante",
    "layout.default_inference_replicas": (
        "paralelismo de tensores com o maior grau que divide as cabeças, estágios de pipeline para o resto até um por "
        "camada, e cópias do modelo nas GPUs além disso"
    ),
    "layout.default_llamacpp": "o llama.cpp divide as camadas entre as GPUs",
    "layout.zero_one_gpu": ". ZeRO e FSDP particionam entre GPUs de paralelismo de dados: numa única GPU não "
                           "economizam nada, a menos que façam offload",
    "layout.default_training": "paralelismo de dados com ZeRO-3, o equivalente ao full shard do FSDP",
    "rank.title": "A GPU mais carregada ({rank}): {total} no pico ({phase}), {share} dos seus {memory}",
    "rank.title_device": "A GPU mais cheia, {device} {gpu}: {total} no pico ({phase}), {share} dos seus {memory}",
    "field.devices.caption": ("Cada GPU da divisão do llama.cpp, em GiB, nas partes que o "
                              "llama_memory_breakdown_print registra"),
    "field.devices.device": "GPU",
    "field.devices.layers": "Camadas",
    "field.devices.model": "Modelo",
    "field.devices.context": "Contexto",
    "field.devices.compute": "Computação",
    "field.devices.overhead": "Sobrecarga",
    "field.devices.total": "Total",
    "field.devices.share": "Usado",
    "field.devices.memory": "Placa",
    "rank.title_same": "Cada GPU guarda {total} no pico ({phase}), {share} dos seus {memory}",
    "rank.inference": "inferência",
    "rank.caption": "O que a GPU mais carregada guarda, e como o layout dividiu cada parte para ela",
    "rank.col.component": "Componente",
    "rank.col.size": "Nesta GPU",
    "rank.col.split": "Como foi dividido",
    "rank.stage": "estágio {stage} de {stages}",
    "rank.stages": "Estágios de pipeline: {stages}",
    "rank.host": "Memória do host por nó para os estados em offload: {bytes}",
    "rank.vllm_pool": "Pool de KV do vLLM nesta GPU: {pool}, {tokens} tokens, {concurrency} "
                      "{concurrency:sequência|sequências} de {seq} tokens ao mesmo tempo",
    "split.layers": "{count} de {layers} camadas",
    "split.embedding": " e o embedding",
    "split.head": " e a cabeça de saída",
    "split.last_stage": "apenas no último estágio",
    "split.tp": "TP {tp}: 1/{tp} de cada matriz, normalizações replicadas",
    "split.kv_heads": "{per} de {heads} cabeças KV por GPU",
    "split.kv_replicated": "{per} cabeça KV por GPU: {heads} cabeças em TP {tp}, então as cabeças são replicadas",
    "split.kv_latent": "o latente do MLA é replicado em cada rank de TP",
    "split.vocab": "1/{tp} do vocabulário",
    "split.ep": "especialistas distribuídos em EP {ep}",
    "split.tp_activations": "TP {tp}: as partes divididas das ativações de cada camada, o restante replicado",
    "split.sp": "TP {tp} com paralelismo de sequência: 1/{tp} de cada ativação",
    "split.cp": "1/{cp} da sequência (paralelismo de contexto)",
    "split.in_flight": "microlotes em andamento (1F1B): {count}",
    "split.own_batch": "o seu próprio microlote de {batch} (paralelismo de dados)",
    "split.offloaded": "em offload na memória do host",
    "split.sharded": "particionado entre {n} ranks de paralelismo de dados (ZeRO-{zero})",
    "split.replicated": "uma cópia completa em cada um dos {dp} ranks de paralelismo de dados",
    "split.zero3": "1/{n} de cada (ZeRO-3), mais a camada reunida ({gather})",
    "split.vllm_peak": "o pico da execução de profiling, inteiro em cada GPU",
    "split.vllm_nccl": "buffers do NCCL e do all-reduce (0,42 GiB a mais por GPU em TP 2 nos logs do vLLM)",
    "split.every_gpu": "em cada GPU",
    "reverse.hint": (
        "Exato: a resposta cabe, e um token, amostra ou camada a mais não cabe. “Cabe” significa no máximo 100% da "
        "memória de cada GPU; deixe alguma margem para a fragmentação."
    ),
    "answer.max_num_ctx": "Maior contexto (num_ctx)",
    "answer.max_seq": "Sequência mais longa",
    "answer.max_batch": "Maior lote",
    "answer.min_gpus": "Menor número de GPUs",
    "answer.max_params": "Maior modelo da mesma família",
    "answer.seq_none": "nenhuma: nem 1 token cabe",
    "answer.seq_capped": "pelo menos {value:,} tokens (o limite de entrada)",
    "answer.seq": "{value:,} tokens",
    "answer.seq_beyond_context": " (além do contexto de {context:,} tokens do modelo)",
    "answer.batch_none": "nenhum: nem {smallest} cabe",
    "answer.batch_capped": "pelo menos {value:,} (o limite de entrada)",
    "answer.gpus_none": "nenhum: só a sobrecarga já enche uma GPU",
    "answer.gpus_one_only": ("nenhum: com um modelo de rascunho ou camadas MTP o llama.cpp é modelado numa só GPU, "
                            "que não o comporta"),
    "answer.gpus_none_rank": "nenhum até 1.024: o que cada GPU guarda, qualquer que seja a quantidade (o seu próprio "
                             "microlote, as partes que este layout replica), é mais do que uma placa",
    "answer.gpus": "{value:,} × {gpu}",
    "answer.params_none": "nenhum: nem 1 camada cabe",
    "answer.params": "{at_least}{count} parâmetros ({layers:,} camadas desta largura; agora {now:,})",
    "answer.at_least": "pelo menos ",
    "target.one": "{gpu}",
    "target.many": "{count} × {gpu}",
    "chart.title": "Memória por GPU em função do {axis}",
    "chart.axis.seq": "comprimento da sequência (tokens)",
    "chart.axis.num_ctx": "contexto que o Ollama aloca, num_ctx (tokens)",
    "chart.axis.parallel": "sequências paralelas (--parallel)",
    "chart.axis.batch": "tamanho do lote",
    "chart.limit": "{target}: {memory} cada",
    "chart.now": "agora {value:,}",
    "chart.desc": "Memória por GPU em função do {axis}, de {first} em 1 a {last} em {end}; {ending}.",
    "chart.ending.none": "nem mesmo {name} 1 cabe em {target}",
    "chart.ending.all": "cabe em {target} em toda a faixa",
    "chart.ending.stop": "deixa de caber em {target} ({memory} cada) depois de {answer:,}",
    "capacity.several_gpus": "várias GPUs",
    "link.too_long": "O link tinha mais de {limit:,} caracteres; o restante foi ignorado.",
    "link.too_many": "O link tinha mais de {limit} partes; as demais foram ignoradas.",
    "link.value_too_long": "Ignorado do link: {field}: mais de {limit} caracteres.",
    "link.config": "Ignorado do link: modelo 'config' (um config.json importado nunca sai da máquina onde está).",
    "link.pipeline_config": "Ignorado do link: pipeline 'config' (uma pasta diffusers importada nunca sai da máquina "
                            "onde está).",
    "link.hidden": "Ignorado do link: {keys}, uma distribuição entre várias GPUs, com uma GPU.",
    "problem": "{field}: recebido {value}; {reason}",
    "problem.whole_number": "esperado um número inteiro de {g0} a {g1}",
    "problem.number": "esperado um número de {g0} a {g1}",
    "problem.number_above": "esperado um número acima de {g0} até {g1}",
    "problem.one_of": "esperado um de: {g0}",
    "problem.one_of_or_empty": "esperado um de: {g0} ou nada (o padrão)",
    "problem.flag": "esperado 1 ou 0",
    "problem.version_printed": "uma versão como {g0}, como `{g1}` a mostra",
    "problem.version": "uma versão como {g0}",
    "problem.lora_targets": "esperado all-linear, all-linear,head ou um subconjunto separado por vírgulas de {g0}",
    "problem.override_tensor": "esperado PADRÃO=DISPOSITIVO, por exemplo {g0}",
    "problem.tensor_split_zero": "ao menos uma proporção acima de 0 (todas zero: deixe vazio)",
    "problem.at_most_patterns": "no máximo {g0} padrões",
    "problem.at_most_proportions": "no máximo {g0} proporções, uma por GPU",
    "problem.gpu": (
        "uma GPU ou um Mac da lista (por exemplo {g0}), ou a memória de uma placa como {g1} (de {g2} a {g3} GB)"
    ),
    "problem.draft_model": "o nome de um preset (um modelo pequeno da mesma família), ou vazio",
    "problem.gguf_type": "um tipo GGUF ({g0})",
    "link.ignored": "Ignorado do link: {problem}",
    "link.unknown": "Chaves desconhecidas ignoradas no link: {keys}",
    "link.repeated": "Usada a primeira ocorrência das chaves repetidas no link: {keys}",
    "chart.caption": (
        "Linha contínua: memória por GPU. Linha tracejada: a memória da GPU. Hachurado: não cabe. Linha vertical: o "
        "seu valor atual."
    ),
    "capacity.title": "O que cabe em quanta memória",
    "capacity.intro": (
        "Tamanhos de modelo, em bilhões de parâmetros, cujos pesos cabem em cada quantidade de VRAM. O limite "
        "superior são os pesos sozinhos ocupando toda a memória; o limite inferior deixa livre a margem abaixo para o "
        "framework, o cache KV e as ativações."
    ),
    "capacity.caption": (
        "GB = 10⁹ bytes. Exemplos: modelos que passam a caber naquela linha, ou que cabem num formato mais preciso do "
        "que na linha de cima, cada um no formato mais preciso que cabe."
    ),
    "capacity.col.vram": "VRAM",
    "capacity.col.examples": "Exemplos",
    "capacity.note.1": "Raramente toda a VRAM está disponível: o framework, a interface gráfica do sistema "
                       "operacional e outros processos ocupam parte dela.",
    "capacity.note.2": (
        "A inferência precisa de menos memória que o treinamento: o treinamento também guarda gradientes, estado do "
        "otimizador e ativações armazenadas (16 bytes por parâmetro ou mais com Adam)."
    ),
    "capacity.note.3": (
        "“Várias GPUs”: mais do que cabe na maior GPU individual da nossa lista; o paralelismo de modelo divide um "
        "modelo entre várias placas."
    ),
    "capacity.note.4": (
        "INT8 e abaixo exigem quantização; os tamanhos exatos dependem da arquitetura, da implementação e das escalas "
        "do formato. As contagens marcadas nos dados como publicadas, e não exatas, são os números arredondados dos "
        "artigos."
    ),
    "capacity.note.5": (
        "Em comparação com a tabela original: ela deixava 4 GB livres até 24 GB (25% e 17%) e 8 GB acima disso (10% "
        "em 80 GB, caindo para 1,6% em 512 GB), pouco demais para o cache KV e as ativações dos modelos grandes a que "
        "essas linhas se destinam. Aqui a margem é uma fração da memória: 20%, a menos que você a altere."
    ),
    "guide.title": "Guia",
    "guide.1.q": "O que é VRAM e por que ela importa?",
    "guide.1.a": (
        "VRAM é a memória própria da GPU. Para rodar um modelo, a GPU precisa guardar os pesos, as chaves e os "
        "valores em cache do texto até ali (o cache KV) e os resultados intermediários da camada que está calculando. "
        "Se a soma for maior que a placa, o programa para com um erro de falta de memória (out of memory), ou "
        "transborda para uma memória muito mais lenta."
    ),
    "guide.2.q": "Por que o treinamento precisa de tanto mais?",
    "guide.2.a": (
        "O treinamento guarda um gradiente para cada peso, o estado do otimizador (o Adam guarda dois números fp32 "
        "por peso: 8 bytes), com precisão mista uma cópia dos pesos em fp32 (4 bytes), e as ativações de todas as "
        "camadas para a passagem reversa. Com Adam e precisão mista, são 16 bytes por parâmetro antes de qualquer "
        "ativação."
    ),
    "guide.3.q": "Como a precisão altera a memória?",
    "guide.3.a": (
        "Um peso ocupa 4 bytes em fp32, 2 em fp16 ou bf16, 1 em int8 e meio byte em int4. Passar de fp16 para int4 "
        "divide os pesos por quatro; é assim que um modelo de 70B cabe em uma ou duas placas. Os formatos quantizados "
        "também armazenam escalas (cerca de 0,1–0,5 bit a mais por peso), que esta página não inclui, e avisa."
    ),
    "guide.4.q": "O que é o cache KV?",
    "guide.4.a": (
        "Durante a geração, o modelo guarda as chaves e os valores de cada camada para todos os tokens até ali: "
        "2 × camadas × cabeças KV × tamanho da cabeça × tokens × lote valores. Modelos com atenção de consulta "
        "agrupada, GQA (Llama 3, Mistral, Qwen2.5), compartilham chaves e valores entre cabeças, então o cache deles "
        "é de 4 a 8 vezes menor do que a dimensão oculta sugere. Contextos longos podem deixar o cache maior que os "
        "pesos."
    ),
    "guide.5.q": "Qual é o trade-off do checkpointing de gradiente?",
    "guide.5.a": (
        "Em vez de guardar as ativações de todas as camadas, o checkpointing por camada guarda só a entrada de cada "
        "camada e recomputa uma camada por vez durante a passagem reversa: cerca de um terço a mais de computação "
        "por um grande corte na memória. O esquema sqrt(L) guarda menos entradas e recomputa segmentos maiores."
    ),
    "guide.6.q": "Quão exato é o cálculo?",
    "guide.6.a": (
        "As contagens de parâmetros são exatas; o cache KV e os estados do modelo seguem as suas definições byte a "
        "byte; as ativações de treinamento seguem o que o Hugging Face transformers salva, conferidas com medições em "
        "implementações reais. A sobrecarga do framework varia com o driver e as bibliotecas: ajuste-a para o que "
        "você observa."
    ),
    "guide.7.q": "O que posso perguntar no sentido inverso?",
    "guide.7.a": (
        "Escolha uma GPU e quantas delas: a página dá o contexto mais longo e o maior lote que cabem, o menor número "
        "de placas necessário e o maior modelo com a mesma largura. A tabela abaixo responde “o que cabe em N GB?” em "
        "cada precisão."
    ),
    # the answer first (present.present_verdict) and the export buttons
    "page.languages": "Idioma",
    "page.language.en": "English",
    "page.language.pt": "Português",
    "legend.hardware": "Hardware",
    "more.options": "Mais opções",
    "more.set": "{label} · {count} definidas",
    "field.remember_gpu.label": "Lembrar minha placa",
    "field.remember_gpu.help": (
        "Guardada no armazenamento local deste navegador, só se marcado; desmarque para esquecê-la."
    ),
    "fit.fits": "cabe",
    "fit.tight": "no limite",
    "fit.does not fit": "não cabe",
    "fit.cannot_run": "não executa este formato",
    "verdict.one": "uma {gpu}",
    "verdict.many": "{count} × {gpu} ({layout})",
    "verdict.fits": "Cabe em {where}: {used} de {usable} ({share} em uso).",
    "verdict.tight": "Cabe em {where}, no limite: {used} de {usable} ({share} em uso); a fragmentação pode ocupar o "
                     "resto.",
    "verdict.no": "Não cabe em {where}: precisa de {used}, há {usable} ({share}). A maior parcela: {part} "
                  "({part_share} do total).",
    "verdict.pipeline_no": "Não cabe em {where}: precisa de {used}, há {usable} ({share}). Tente o posicionamento "
                           "(descarregar na CPU), uma precisão menor para o denoiser ou os codificadores de texto, ou "
                           "um tamanho menor.",
    "verdict.at_least": "No mínimo: a memória de trabalho de uma etapa ainda não é modelada (abaixo).",
    "verdict.no_shared": "Não cabe em {where}: {used} na GPU e {ram} na RAM do sistema, {total} ao todo, de {memory} "
                         "de memória unificada ({share}), que a GPU e a CPU dividem.",
    "verdict.no_carve_out": "Não cabe em {where}: {ram} na RAM do sistema, dos {left} que a reserva de {share} da GPU "
                             "deixa de {memory} ({fill}): a reserva é da GPU, usada ou não.",
    "verdict.no_pool": "Não cabe em {where}: depois dos pesos, do pico de ativações e da sobrecarga, a fatia da placa "
                       "que o vLLM reserva deixa {pool} de cache KV para os {kv} de que as sequências precisam.",
    "verdict.fits.short": "{used} · cabe em {where} ({share})",
    "verdict.tight.short": "{used} · no limite em {where} ({share})",
    "verdict.no.short": "{used} · não cabe em {where}",
    "verdict.changes": "Qualquer uma destas mudanças faz caber:",
    "verdict.none": (
        "Nenhuma mudança isolada de contexto, lote, formato, receita ou número de GPUs faz caber: combine-as ou "
        "escolha um modelo menor."
    ),
    "verdict.change_card": "Trocar a placa",
    "change.attention": "FlashAttention (o SDPA do transformers, o -fa do llama.cpp) em vez de eager",
    "change.kv": "cache KV em {format}",
    "change.seq": "um contexto de {value:,} tokens",
    "change.batch": "um lote de {value:,}",
    "change.images": "{value:,} {value:imagem|imagens} por pedido",
    "change.image_size": "imagens de até {width:,} × {height:,} pixels",
    "change.n_cpu_moe": "os especialistas de {value} {value:camada|camadas} (as primeiras) na RAM do sistema "
                        "(--n-cpu-moe {value})",
    "change.gpu_layers": "{value} de {layers} camadas na GPU, o resto na RAM do sistema (-ngl {value}; mais lento)",
    "change.format": "pesos em {format}",
    "change.gpus": "{count:,} × {gpu} ({layout})",
    "change.gpu_memory_utilization": "gpu_memory_utilization do vLLM em {value}",
    "change.gpu_memory_utilization_unset": "gpu_memory_utilization do vLLM sem valor (o padrão do vLLM 0.34: 1,0)",
    "change.max_num_seqs": "max_num_seqs do vLLM em {value:,}",
    "change.checkpointing": "checkpointing de ativações por camada",
    "change.lora": "LoRA (rank 16) em vez de fine-tuning completo",
    "change.qlora": "QLoRA: LoRA rank 16 sobre uma base de 4 bits (nf4)",
    "change.qlora_checkpointing": "QLoRA (rank 16, nf4) com checkpointing de ativações por camada",
    "export.title": "Exportar:",
    "export.markdown": "Copiar como Markdown",
    "export.csv": "CSV",
    "export.json": "JSON",
    "export.print": "Imprimir ou PDF",
    "export.copied": "Copiado: cole numa issue ou num chat.",
    "export.downloaded": "{name} salvo.",
    # moved out of the engine (formulas, model notes and assumptions, the model line)
    "weights.share": "{what}: {params} a {bits} bits por peso",
    "weights.part.linear": "camadas lineares",
    "weights.part.rest": "embeddings, cabeça de saída, normalizações, roteadores e vieses em bf16",
    "weights.part.mlp": "camadas de MLP e de especialistas",
    "weights.part.rest_attention": "atenção, embeddings, cabeça de saída, normalizações, roteadores e vieses em bf16",
    "weights.part.rest_int4": "atenção, MLPs densas e compartilhadas, roteador, embeddings, cabeça e normas em bf16",
    "weights.part.fp4_experts": "especialistas roteados em FP4 com uma escala ue8m0 a cada 32 pesos (4,25 bits)",
    "weights.part.fp8_ue8m0": "demais camadas lineares em FP8 com uma escala ue8m0 por bloco de 128 × 128",
    "weights.part.fp32_v4": "hiperconexões, sinks de atenção e vieses de posição dos compressores em fp32",
    "weights.part.rest_v4": "compressores, pesos do indexador, roteador, embeddings, cabeça e normas em bf16",
    "weights.part.rest_experts": "especialistas roteados, {rest}",
    "weights.part.rest_mxfp4": "atenção, roteador, embeddings, cabeça de saída, normalizações e vieses em bf16",
    "activations.masks": (
        "{layers_bytes}, mais {masks_bytes} de máscaras de atenção s × s construídas uma vez para o forward: {bytes}"
    ),
    "activations.cross_images": (
        "; disso, {bytes} para {images} {images:imagem|imagens}: {tower}, e as {cross} camadas de atenção cruzada "
        "guardam os {tokens} tokens de visão de cada sequência (seus K e V, repetidos para cada cabeça, e as máscaras)"
    ),
    "activations.tower.trained": "a torre de visão, treinada, guarda os tensores das suas camadas em todos os tiles",
    "activations.tower.lora": ("a torre de visão congelada guarda, em todos os tiles, o que seus adaptadores LoRA "
                               "precisam a partir do primeiro"),
    "activations.tower.frozen": "a torre de visão, congelada e sem adaptadores, não guarda nada",
    "activations.tower.inputs": ("a torre de visão congelada guarda os tensores das suas camadas em todos os tiles, "
                                 "pois o checkpointing faz seus embeddings de patch pedirem gradiente "
                                 "(enable_input_require_grads do transformers)"),
    "activations.vision": (
        "; antes dele a torre de visão codifica {encodes}: {bytes} com os embeddings do prompt{estimated}, {extra} "
        "acima do pico do próprio prefill"
    ),
    "activations.images": "{images} {images:imagem|imagens} de {patches} patches",
    "activations.video": "{videos} {videos:vídeo|vídeos}, {pairs} pares de quadros de {patches} patches",
    "activations.vision.kin": " (estimado como uma família medida)",
    "activations.kept": "{inputs} entradas × {input_bytes} B + {layers}",
    "model.note.multimodal": (
        "{model_type} é multimodal: o modelo de linguagem é contado; sua torre de visão e seu projetor não, pois os "
        "deste tipo não são lidos (os motores os carregam, a menos que sejam instruídos a ignorar imagens)"
    ),
    "model.note.vq_vae": (
        "O Emu3 é multimodal: o modelo de linguagem é contado; seu tokenizador de imagens VQ-VAE (vq_config) não "
        "(270.740.287 parâmetros com os padrões de Emu3VQVAEConfig, transformers 5.23)"
    ),
    "model.note.default_value": "{key} {value}",
    "model.note.defaults": "Ausentes do config, tomados dos padrões do transformers para {model_type}: {keys}",
    "model.note.fp8_variant": "a editora também publica {hf_id}, com os pesos das FFNs em FP8 e o resto em bf16: "
                              "precisão fp8 com quantise mlp (as suas escalas por linha contadas como uma por tensor)",
    "model.note.mtp_undescribed": (
        "o checkpoint também traz uma camada de predição de múltiplos tokens (MTP) (cerca de {params} de parâmetros) "
        "que o config não descreve; os motores só a carregam para decodificação especulativa, e ela não é contada"
    ),
    "model.note.zero_experts": (
        "o transformers 5.23 dá aos {count} experts de computação zero espaços de gate e up também: {params} "
        "parâmetros que o checkpoint não tem, guardados só pelo transformers: as "
        "respostas dos outros motores deixam-nos de fora"
    ),
    "model.note.mtp": (
        "a camada de predição de múltiplos tokens (MTP) do checkpoint não é contada: os motores só a carregam para a "
        "decodificação especulativa, que a opção de tokens MTP (mtp) conta no vLLM e no llama.cpp (os arquivos GGUF "
        "do llama.cpp podem guardá-la, então um arquivo pode ser maior do que o que é carregado)"
    ),
    "model.note.mtp_on": (
        "decodificação especulativa com as camadas de predição de múltiplos tokens (MTP), {tokens} {tokens:token "
        "rascunhado|tokens rascunhados} "
        "por passo no {engine}: {layers} {layers:camada MTP é contada|camadas MTP são contadas}, {params} parâmetros "
        "no "
        "total{copies}; {rest}"
    ),
    "model.note.mtp_on.shared_vllm": ", compartilhando o embedding e a cabeça do modelo (o vLLM os compartilha "
                                     "mesmo quando o checkpoint tem cópias)",
    "model.note.mtp_on.shared_llamacpp": (
        ", compartilhando o embedding e a cabeça do modelo (um GGUF cuja camada MTP guarda as suas próprias cópias, "
        "como o checkpoint do GLM-4.5 as tem, carrega 2 × vocabulário × hidden a mais)"
    ),
    "model.note.mtp_on.embed_head": (
        ", cada uma com as suas próprias cópias do embedding e da cabeça (embed_tokens, shared_head.head), como o "
        "checkpoint as tem"
    ),
    "model.note.mtp_on.vllm": (
        "o seu cache KV divide o pool do vLLM, e os buffers do proponente estão na linha de ativações; o pico próprio "
        "do rascunho e da amostragem por rejeição não é modelado"
    ),
    "model.note.mtp_on.llamacpp": (
        "o cache e o buffer de cálculo do contexto MTP, e as linhas de logits do modelo para os tokens rascunhados, "
        "estão nas linhas acima"
    ),
    "assumption.unknown_type": (
        "model_type {model_type} não é um dos {count} tipos que a calculadora lê com exatidão: foi lido como um "
        "decoder no estilo Llama (RMSNorm, atenção rotativa, MLP com gate)"
    ),
    "assumption.legacy.xlstm": (
        "as camadas mLSTM do xLSTM foram lidas como atenção (q, k, v e o gate de saída juntos somam quatro "
        "projeções hidden_size²) sobre uma janela de um token: os gates de entrada e de esquecimento, a norma "
        "multi-cabeça e o estado de memória por cabeça (head_dim² por cabeça) não são contados"
    ),
    "assumption.legacy.cpmant": (
        "as linhas de prompt da embedding do CPM-Ant, sua embedding de segmento e seu viés de posição relativa "
        "não são contados"
    ),
    "assumption.legacy.gpt_neox_japanese": (
        "o viés da saída da atenção da última camada (hidden_size valores) não é contado"
    ),
    "assumption.layer_kind": (
        "{count} camadas do tipo {kind} não são um tipo que a calculadora lê para o model_type {model_type}: "
        "foram contadas como camadas de atenção completa"
    ),
    "assumption.weights_file": "o arquivo de pesos não corresponde à arquitetura: {what}",
    "assumption.weights_file.experts": (
        "a camada {layer} tem tensores de especialistas ({bytes}) que o config não prevê"
    ),
    "assumption.weights_file.no_layer": "a camada {layer} não tem tensores no arquivo",
    "assumption.weights_file.no_embedding": "não há tabela de embeddings de tokens no arquivo",
    "assumption.weights_file.more": "e mais {count}",
    "model.note.same_shapes": "as mesmas formas de {model}: só o contexto ({context} tokens) e a base do RoPE mudam",
    "assumption.drafter_alone": (
        "um rascunhador só roda ao lado do seu modelo alvo, cuja memória não está nesta resposta, e o transformers "
        "5.23 não consegue construí-lo (seu kv_sharing_modes recusa um modelo em que toda camada reusa K/V): os pesos "
        "são exatos; o total e a velocidade são só a parte do rascunhador; para contar os dois, escolha o seu alvo "
        "Gemma 4 como modelo e este rascunhador como modelo de rascunho (runtime llamacpp)"
    ),
    "model.note.drafter": (
        "um rascunhador para decodificação especulativa: cada uma das suas {count} camadas atende às chaves e valores "
        "do seu alvo (um modelo Gemma 4 de largura {backbone}), então não guarda cache próprio; contado aqui sozinho, "
        "sem o alvo"
    ),
    "model.note.kv_shared": (
        "as últimas {count} camadas reutilizam as chaves e valores de uma camada anterior: não guardam cache, e o "
        "transformers não cria projeções K/V para elas; o checkpoint ainda traz esses {params} parâmetros, que o "
        "vLLM e o llama.cpp carregam (não contados aqui)"
    ),
    "assumption.guessed_mla": "a sua atenção foi lida como a atenção latente do DeepSeek (MLA), pelo seu kv_lora_rank",
    "assumption.guessed_experts": (
        "os seus especialistas foram lidos por {key} e pelas regras da família que usa essa chave (que camadas "
        "os têm, a sua largura, especialistas compartilhados)"
    ),
    "assumption.no_type": (
        "o config não tem model_type: foi lido como um decoder no estilo Llama (RMSNorm, atenção rotativa, MLP com "
        "gate)"
    ),
    "assumption.quantised": ("o quantization_config do config.json ({method}) não é lido: os pesos são contados na "
                             "precisão mostrada, não no formato do checkpoint (escolha-o: fp8, gptq-int4, ...)"),
    "assumption.ignored_key": "{key} = {value} não é entendido para o model_type {model_type} e foi ignorado",
    "assumption.custom.heads": "cabeças não informadas: assumidas {heads} (head_dim {head_dim})",
    "assumption.custom.kv_heads": "cabeças KV não informadas: assumida atenção multi-cabeça (cabeças KV = cabeças)",
    "assumption.custom.vocab": "vocabulário não informado: assumidos {vocab} tokens",
    "assumption.custom.ffn": "tamanho da FFN não informado: assumido {ffn} (MLP com gate, cerca de 8h/3)",
    "assumption.custom.block": "bloco no estilo Llama (RMSNorm, rotativa, MLP com gate) para as ativações",
    "model.arch.mla": "MLA (latente {width})",
    "model.arch.mqa": "MQA, head_dim {head_dim}",
    "model.arch.gqa": "GQA {heads}/{kv_heads} cabeças, head_dim {head_dim}",
    "model.arch.mha": "MHA {heads} cabeças, head_dim {head_dim}",
    "model.arch.kinds": "{kinds}",
    "model.arch.kind.full": "{count} completas{window}",
    "model.arch.kind.sliding": "{count} de janela deslizante{window}",
    "model.arch.kind.chunked": "{count} em blocos{window}",
    "model.arch.kind.linear": "{count} lineares{window}",
    "model.arch.parallel_mamba": "um misturador Mamba ao lado de cada atenção",
    "model.arch.kind.mamba": "{count} camadas Mamba{window}",
    "model.arch.kind.none": "{count} só MLP{window}",
    "model.arch.kind.conv": "{count} de convolução curta{window}",
    "model.arch.kind.cross": "{count} de atenção cruzada (à imagem){window}",
    "model.arch.window": " ({window})",
    "model.arch.moe": "MoE {experts} especialistas, {per_token} por token{shared}{partial}",
    "model.arch.moe.shared": " + compartilhado",
    "model.arch.moe.partial": ", em {moe_layers} de {layers} camadas",
    "model.arch.tied": "embeddings compartilhados com a saída",
    "gradients.adapters": "adaptadores em {dtype}",
    # weight formats (formats/weights.py)
    "format.gptq-int4": (
        "GPTQ de 4 bits (pesos empacotados em int32, escalas fp16, zeros empacotados e g_idx por grupo)"
    ),
    "format.gptq-int8": (
        "GPTQ de 8 bits (pesos empacotados em int32, escalas fp16, zeros empacotados e g_idx por grupo)"
    ),
    "format.awq-int4": "AWQ de 4 bits (pesos empacotados em int32, escalas fp16 e zeros empacotados por grupo)",
    "format.nf4": "bitsandbytes NF4 (4 bits, um absmax fp32 a cada 64 pesos)",
    "format.nf4-dq": "bitsandbytes NF4 com quantização dupla (absmax de 8 bits a cada 64, fp32 a cada 256 deles)",
    "format.bnb-int8": "bitsandbytes LLM.int8() (pesos int8, uma escala fp32 por linha de saída)",
    "format.fp8": "FP8 e4m3 (uma escala fp32 por tensor)",
    "format.fp8-block": "FP8 e4m3 (uma escala fp32 por bloco de 128 × 128)",
    "format.mxfp4": "MXFP4 (valores de 4 bits, uma escala de 8 bits a cada 32: 4,25 bits)",
    "format.nvfp4": "NVFP4 (valores de 4 bits, uma escala FP8 a cada 16 e uma fp32 por tensor: 4,5 bits)",
    "format.gguf": "GGUF {name} (llama.cpp)",
    "format.gguf_as": "GGUF {name} (llama.cpp), dimensionado como {planned}: seus tipos por tensor não são publicados",
    "format.file": "os pesos de {name}",
    "format.native": "o formato nativo do checkpoint",
    "format.auto": "o checkpoint como publicado",
    "format.bpw": "EXL2/EXL3 a {bpw} bits por peso",
    "format.native_int4_experts": "especialistas roteados em int4 com uma escala bf16 a cada 32 pesos (4,5 bits)",
    "format.native_mxfp4": "FFNs dos especialistas em MXFP4 (4,25 bits)",
    "format.native_fp8_tensor": "camadas lineares em FP8 com uma escala por matriz",
    "format.native_fp8_block": "camadas lineares em FP8 com escalas por bloco de 128 × 128",
    # how presets' checkpoints store their weights (data/models/*.json native_format)
    "native.fp4_fp8": (
        "especialistas roteados em FP4 (uma escala ue8m0 a cada 32 pesos, 4,25 bits), as demais camadas lineares em "
        "FP8 (e4m3) com uma escala ue8m0 por bloco de 128 × 128; compressores, pesos do indexador, roteador, "
        "embeddings, cabeça e normas em bf16; hiperconexões, sinks de atenção e vieses de posição dos compressores "
        "em fp32"
    ),
    "native.int4_experts": (
        "especialistas roteados em int4 (compressed-tensors W4A16: uma escala bf16 a cada 32 pesos, 4,5 bits); "
        "atenção, MLPs densas e compartilhadas, embeddings e cabeça em bf16"
    ),
    "native.mxfp4": (
        "especialistas em MXFP4 (4,25 bits por peso: valores de 4 bits e uma escala de 8 bits a cada 32); atenção, "
        "roteador, embeddings e cabeça de saída em bf16"
    ),
    "native.fp8_tensor": (
        "FP8 (e4m3) com uma escala por matriz de pesos e escalas de ativação estáticas; embeddings, cabeça, "
        "normas e a torre de visão, se houver, em bf16"
    ),
    "native.fp8_block": (
        "FP8 (e4m3) com uma escala fp32 por bloco de 128 × 128; cabeça de saída, normalizações e roteadores em bf16"
    ),
    "native.fp8_block_embeddings": (
        "FP8 (e4m3) com uma escala fp32 por bloco de 128 × 128; embeddings, cabeça de saída, normalizações e roteador "
        "em bf16"
    ),

    # velocidade e custo (speed/, render/speed.py)
    "speed.title": "Velocidade",
    "speed.intro": (
        "Estimada pelos bytes que cada token lê e pelos FLOPs que custa, ao ritmo que este motor alcança nesta placa "
        "em execuções publicadas; erro típico abaixo."
    ),
    "speed.line": "Cerca de {decode} tokens/s por sequência, primeiro token em {ttft}.",
    "speed.line.not_fit": "{line}, se coubesse.",
    "speed.line.no_ttft": "Cerca de {decode} tokens/s por sequência.",
    "speed.line.training": "Cerca de {tokens} tokens de treino/s, {step} por passo.",
    "speed.figure.ttft": "Tempo até o primeiro token",
    "speed.figure.decode": "Geração, por sequência",
    "speed.figure.output": "Geração, todas as sequências",
    "speed.figure.prefill": "Processamento do prompt",
    "speed.figure.tpot": "Tempo por token de saída",
    "speed.figure.step": "Passo de treino",
    "speed.figure.train": "Vazão do treino",
    "speed.figure.mfu": "Utilização de FLOPs do modelo",
    "speed.figure.run": "Execução do treino",
    "speed.figure.cost_hour": "Preço",
    "speed.figure.cost_tokens": "Custo da saída",
    "speed.figure.cost_embed": "Custo dos embeddings",
    "speed.figure.cost_audio": "Custo da transcrição",
    "speed.value.usd_million_input": "US${value} por milhão de tokens processados",
    "speed.value.usd_audio_hour": "US${value} por hora de áudio",
    "speed.figure.cost_run": "Custo da execução",
    "speed.value.tokens_s": "{value} tokens/s",
    "speed.value.seconds": "{value} s",
    "speed.value.ms": "{value} ms",
    "speed.value.hours": "{value} h",
    "speed.value.usd_hour": "US${value} por hora",
    "speed.value.usd_million": "US${value} por milhão de tokens de saída",
    "speed.value.usd": "US${value}",
    "speed.basis.memory": (
        "Limitado pela memória: {bytes} lidos por passo{each} a {share} de {bandwidth} GB/s{cache}: {read} ms"
        "{host_part}, mais {fixed} ms de custo fixo por passo ({step} ms por token em média, {sequences} "
        "{sequences:sequência|sequências} com cerca de {depth} tokens de contexto)."
    ),
    "speed.basis.each_gpu": " por cada uma das suas {gpus} GPUs",
    "speed.basis.cache_share": " ({cache} deles o cache KV, lido a {share})",
    "speed.basis.host_part": ", e {host} da RAM do sistema a {share} de {ram} GB/s: {ms} ms",
    "speed.basis.host_memory": (
        "Limitado pela RAM do sistema: {host} lidos por passo da RAM a {ram_share} de {ram} GB/s, e {bytes}{each} da "
        "GPU a {share} de {bandwidth} GB/s{cache}, mais {fixed} ms de custo fixo ({step} ms por token em média)."
    ),
    "speed.ram.yours": "RAM do sistema lida a {ram} GB/s: o valor que você informou.",
    "speed.ram.desktop": (
        "RAM do sistema lida a {ram} GB/s: o padrão, a de um desktop DDR5 de dois canais (uma placa própria num PC; "
        "informe a largura de banda da sua RAM se for outra)."
    ),
    "speed.ram.unified": (
        "RAM do sistema lida a {ram} GB/s: o padrão em memória unificada, onde os núcleos da CPU leem as camadas "
        "mantidas na RAM da mesma memória a cerca de metade da sua largura de banda (a AnandTech mediu cerca de 200 dos"
        " 400 GB/s de um M1 Max), nunca abaixo dos {desktop} GB/s de um desktop nem acima da própria memória."
    ),
    "speed.basis.compute": (
        "Limitado pela computação: {sequences} {sequences:sequência|sequências} por passo; ler os {bytes}{each} "
        "a {share} de {bandwidth} "
        "GB/s leva menos tempo que as multiplicações de matrizes ({step} ms por passo)."
    ),
    "speed.basis.rdna_mxfp4": (
        "Do tempo da GPU por passo, {seconds} ms são os experts MXFP4 do gpt-oss numa placa RDNA além da sua "
        "leitura: o transformers executa-os pelo matmul_ogs do triton_kernels, cuja configuração de lançamento AMD "
        "com {rows} linhas roteadas ou menos (2 warps) levou {slowdown} vezes o tempo afinado no PR #10810 de "
        "triton-lang/triton (gfx1201); nenhuma das cópias do Hub que o transformers carrega tem as configurações "
        "RDNA desse PR."
    ),
    "speed.basis.overhead": (
        "Limitado por custos fixos: {launch} ms por passo de lançamentos de kernels e sincronização, mais que ler "
        "{bytes}{each} a {share} de {bandwidth} GB/s{cache} ({step} ms por token)."
    ),
    "speed.basis.prefill_acc16": (
        "Prompt: {flops} TFLOP para {tokens} tokens a {share} de {tflops} TFLOPS{each}, a taxa da placa com acumulação "
        "em FP16 que os kernels do llama.cpp usam, o dobro da taxa de 16 bits listada para placas GeForce "
        "(multiplicações {kernel})."
    ),
    "speed.basis.prefill_rest": (
        "As multiplicações de matrizes levam {compute} s disso; ler os pesos, as ativações entre elas e os escores da "
        "atenção, e o custo fixo de cada um dos seus {chunks} {chunks:microlote|microlotes} levam o primeiro token a "
        "{total} s."
    ),
    "speed.basis.on_each_gpu": " em cada uma das suas {gpus} GPUs",
    "speed.basis.embed_rest": (
        "As multiplicações de matrizes levam {compute} s disso; ler os pesos e as ativações entre elas, e o custo fixo "
        "de cada um dos seus {chunks} {chunks:microlote|microlotes}, levam a passada do lote a {total} s."
    ),
    "speed.basis.prefill": (
        "Prompt: {flops} TFLOP para {tokens} tokens a {share} de {tflops} TFLOPS{each} (multiplicações {kernel})."
    ),
    "speed.basis.prefill_host_unified": (
        "Dos {total} s do prompt, {seconds} s copiam os {bytes} de pesos na RAM do sistema para os buffers da GPU, uma "
        "vez por cada um dos seus {chunks} {chunks:microlote|microlotes}, a {pcie} GB/s (metade da largura de banda "
        "da memória unificada: cada byte lido e escrito)."
    ),
    "speed.basis.prefill_host": (
        "Dos {total} s do prompt, {seconds} s copiam os {bytes} de pesos na RAM do sistema para a GPU, uma vez por "
        "cada um dos seus {chunks} {chunks:microlote|microlotes}, a {pcie} GB/s pelo PCIe."
    ),
    "speed.basis.output": (
        "Todas as sequências: {rate} tokens de saída/s sob uma carga contínua de {sequences} sequências, onde só a "
        "decodificação daria {decoding}: o prompt de {prompt} tokens de cada novo pedido é processado entre os passos "
        "de decodificação, cerca de {share} do tempo do motor."
    ),
    "speed.basis.engine": "Ritmos do {engine} ajustados a: {basis}.",
    "speed.basis.training": (
        "Passo: {flops} PFLOP para {tokens} tokens por réplica a {share} de utilização de FLOPs do modelo de {tflops} "
        "TFLOPS por GPU (multiplicações {kernel}), em {gpus} {gpus:GPU|GPUs}; ritmos ajustados a: {basis}."
    ),
    "speed.error": (
        "Erro típico frente a execuções publicadas: {median} na mediana, {worst} no pior caso ({rows} execuções, "
        "{backend})."
    ),
    "speed.error.trainer": (
        "Erro típico frente a execuções publicadas: {median} na mediana, {worst} no pior caso ({rows} execuções, "
        "{backend}: as do torchtune, compiladas). As execuções publicadas do próprio Trainer do Hugging Face "
        "({trainer_rows}, QLoRA em uma GPU) levaram {low}–{high}× o tempo previsto: trate o tempo como subestimado."
    ),
    "speed.error.objective": (
        "Passos de {objective} ainda não foram conferidos com execuções publicadas: trate o tempo como estimativa "
        "grosseira."
    ),
    "speed.error.preference": (
        "Frente a {rows} execuções publicadas do TRL ({objectives}): {median} na mediana, {worst} no pior caso, todas "
        "mais lentas que o previsto ({low}–{high}× o tempo previsto): trate o tempo como subestimado."
    ),
    "speed.error.grpo": (
        "Frente a execuções publicadas de GRPO: {median} na mediana, {worst} no pior caso ({rows} execuções do "
        "open-r1, modelos de 7B em H100s); outros tamanhos e placas ainda não foram conferidos."
    ),
    "speed.error.none": (
        "Ainda não conferido com execuções publicadas para este motor: trate como estimativa grosseira."
    ),
    "speed.error.platform": (
        "Ainda não conferido com execuções publicadas nesta plataforma ({backend}; só {checked}): trate como "
        "estimativa grosseira."
    ),
    "speed.error.fewer_gpus": (
        "Erro típico frente a execuções publicadas: {median} na mediana, {worst} no pior caso ({rows} execuções, "
        "{backend}), todas em {least} GPUs ou mais: o custo fixo do motor por camada e passo não foi medido com menos "
        "GPUs nesta plataforma, então trate como estimativa grosseira, provavelmente rápida demais para um modelo "
        "pequeno."
    ),
    "speed.error.other_cards": (
        "Erro típico frente a execuções publicadas: {median} na mediana, {worst} no pior caso ({rows} execuções, "
        "{backend}), todas em placas {kinds}: nenhuma neste tipo de placa, então trate como estimativa grosseira."
    ),
    "speed.memory.hbm": "HBM",
    "speed.memory.gddr": "GDDR",
    "speed.memory.unified": "de memória unificada",
    "speed.unknown_bandwidth": (
        "Velocidade desconhecida: a largura de banda da memória desta placa não é conhecida. Informe-a "
        "(--gpu-bandwidth, em GB/s)."
    ),
    "speed.unknown_tflops": (
        "Velocidade do prompt desconhecida: os TFLOPS de 16 bits desta placa não são conhecidos. Informe-os "
        "(--gpu-tflops)."
    ),
    "speed.unknown_tflops_run": (
        "Velocidade desconhecida: os TFLOPS de 16 bits desta placa não são conhecidos. Informe-os (--gpu-tflops)."
    ),
    "speed.unknown_layout": "Velocidade desconhecida: estas GPUs não rodam este arranjo.",
    "speed.chart.context.title": "Velocidade de geração conforme o tamanho do contexto",
    "speed.chart.context.desc": (
        "Tokens por segundo de uma sequência, de {low} com {seq} tokens de contexto a {high} no início."
    ),
    "speed.chart.context.x": "contexto (tokens)",
    "cost.price.given": "Custos ao preço por GPU-hora informado.",
    "cost.price.default": (
        "Custos a um preço de nuvem de {date} ({source}); informe o seu preço por GPU-hora para mudá-lo."
    ),
    "cost.price.none": "Sem custo: {gpu} não tem preço padrão por GPU-hora; informe o seu (--gpu-hour-price).",
    "field.prompt_tokens.label": "Tokens do prompt",
    "field.prompt_tokens.help": "Tokens de cada prompt, para a velocidade; vazio: a sequência menos a saída.",
    "field.output_tokens.label": "Tokens de saída",
    "field.output_tokens.help": (
        "Tokens que cada sequência gera (256 se vazio). A sequência é no mínimo prompt + saída."
    ),
    "field.gpu_bandwidth.label": "Largura de banda da memória (GB/s)",
    "field.gpu_bandwidth.help": (
        "A da placa, se você souber melhor ou se ela não estiver na lista; vazio: a da própria placa."
    ),
    "field.gpu_tflops.label": "TFLOPS de 16 bits",
    "field.gpu_tflops.help": "TFLOPS densos de tensor FP16/BF16; vazio: os da própria placa.",
    "field.ram_bandwidth.label": "Largura de banda da RAM do sistema (GB/s)",
    "field.ram_bandwidth.help": (
        "Para camadas mantidas na RAM; vazio: 64 (um desktop DDR5 de dois canais) ou, num Mac, DGX Spark ou Strix "
        "Halo, metade da largura de banda da sua memória (o que a CPU lê)."
    ),
    "field.gpu_hour_price.label": "Preço por GPU-hora (US$)",
    "field.gpu_hour_price.help": "Quanto uma GPU lhe custa por uma hora; vazio: um preço de nuvem, quando há um.",
    "field.train_tokens.label": "Tokens de treino",
    "field.train_tokens.help": "Tokens que a execução processa (exemplos × tokens × épocas), para o tempo e o custo.",
    "legend.speed": "Velocidade e custo",
    "speed.fit.llamacpp": (
        "execuções do llama-bench de 2024-25 (tests/data/speed: as tabelas de Llama 3 de XiongjieDai, as discussões "
        "#4167, #15013 e, para ROCm, #15021 de ggml-org/llama.cpp)"
    ),
    "speed.fit.vllm": (
        "84 execuções publicadas de vLLM 0.6-0.11 e SGLang servindo (tests/data/speed: o Performance Lab da GPUStack "
        "em A100/H100/H200, as tabelas da Oracle em MI300X, uma varredura numa RTX 4090; tokens de saída/s na "
        "concorrência da execução)"
    ),
    "speed.fit.transformers": (
        "o generate do transformers contra execuções de decodificação publicadas (tests/data/speed/transformers_bnb_*"
        ".json: os benchmarks da v0.45 do bitsandbytes numa RTX 4090 e numa H100, o Llama 2 13B do optimum numa A100, "
        "o do optimum-quanto numa A10G; bf16/fp16, nf4, nf4-dq e bnb-int8 com lotes de 1 a 32)"
    ),
    "speed.fit.training": (
        "as tabelas do README do torchtune com tokens/s de ajuste fino (Llama 3.1 8B numa RTX 4090, 70B e 405B em 8 "
        "A100, Llama 3.2 3B numa A100)"
    ),
    "speed.figure.fastest_format": (
        "Pesos mais rápidos que cabem (4 bits ou mais; empates até 10 % ficam com os mais precisos)"
    ),
    "speed.figure.max_concurrency": "Mais sequências na velocidade pedida",
    "speed.figure.min_gpus_for_run": "Menos GPUs para terminar a tempo",
    "speed.value.concurrency": "{count} {count:sequência|sequências} a {rate} tokens/s ou mais cada",
    "speed.value.concurrency_none": "nenhuma: uma sequência sozinha é mais lenta que {rate} tokens/s",
    "speed.value.gpus_for_run": "{count} GPUs terminam em até {hours} h",
    "speed.value.gpus_for_run_none": "nenhum até 1.024",
    "field.min_tokens_per_s.label": "Velocidade que cada sequência mantém (tokens/s)",
    "field.min_tokens_per_s.help": "Para \"mais sequências nesta velocidade\" (padrão 10, a velocidade de leitura).",
    "field.max_run_hours.label": "Horas que a execução pode levar",
    "field.max_run_hours.help": "Para \"menos GPUs para terminar a tempo\" (com os tokens de treino).",
    "page.status.bytes": "{loaded} de {total} MB baixados",
    "speed.kernel.16-bit": "de 16 bits",
    "speed.kernel.fp8": "FP8",
    "speed.kernel.quantised": "quantizadas",
    "speed.kernel.fp32": "FP32",
    "speed.fit.none": "nada: este motor ainda não tem ritmos próprios, então os do transformers são usados",
    "speed.not_fit": "Não cabe nestas GPUs: estas velocidades são as que teria se coubesse.",
    "speed.value.concurrency_no_fit": "nenhuma: uma sequência não cabe",
    "speed.value.concurrency_not_whole": "nenhuma: uma sequência não cabe com todas as camadas na GPU",
    "llamacpp.cpu_moe": (
        "; os especialistas roteados de {layers} {layers:camada|camadas} (as primeiras) ficam na RAM do sistema "
        "(--n-cpu-moe)"
    ),
    "llamacpp.override_ram": "; o --override-tensor leva {bytes} (líquidos) dos pesos para a RAM do sistema",
    "llamacpp.override_gpu": "; o --override-tensor leva {bytes} (líquidos) dos pesos para a GPU",
    "field.override_tensor.label": "Posição dos tensores (--override-tensor)",
    "field.override_tensor.help": (
        "O -ot do llama.cpp: PADRÃO=DISPOSITIVO, separados por vírgula; um tensor cujo nome no GGUF o padrão "
        "encontra vai para CPU (RAM do sistema) ou CUDA0 (a GPU). Ex.: blk\\.(1[0-9])\\.ffn_.*_exps=CPU."
    ),
    "field.n_cpu_moe.label": "Camadas de especialistas na RAM do sistema (--n-cpu-moe)",
    "field.n_cpu_moe.help": (
        "Mistura de especialistas: as primeiras N camadas mantêm seus especialistas na RAM; o resto fica na GPU."
    ),
    "option.mode.speech": "Fala",
    "field.beams.label": "Feixes",
    "field.beams.help": (
        "Modelos de fala: o tamanho do feixe (1: guloso). Cada feixe guarda a sua cache do decodificador."
    ),
    "field.audio_seconds.label": "Duração do áudio (segundos)",
    "field.audio_seconds.help": "Modelos de fala: a duração de cada áudio; o Whisper ouve-o em janelas de 30 segundos.",
    "field.images.label": "Imagens por pedido",
    "field.images.help": "Cada uma vira os tokens que o processador do modelo faz dela, somados a cada sequência.",
    "field.videos.label": "Vídeos por pedido",
    "field.videos.help": (
        "Cada um vira os tokens dos seus pares de quadros (e carimbos de tempo), quadros do tamanho da imagem."),
    "field.video_seconds.label": "Duração do vídeo (segundos)",
    "field.video_seconds.help": "A duração de cada vídeo.",
    "field.video_fps.label": "Quadros amostrados por segundo",
    "field.video_fps.help": "Os quadros que o processador toma de cada segundo (2 por padrão).",
    "field.image_width.label": "Largura da imagem (pixels)",
    "field.image_width.help": "A largura de cada imagem (e de cada quadro de vídeo).",
    "field.image_height.label": "Altura da imagem (pixels)",
    "field.image_height.help": "A altura de cada imagem (e de cada quadro de vídeo).",
    "field.cpu_moe.label": "Todos os especialistas na RAM do sistema (--cpu-moe)",
    "field.cpu_moe.help": (
        "Os especialistas de todas as camadas na RAM: atenção, especialistas compartilhados e cache ficam na GPU."
    ),
    "speed.figure.llamacpp_fit": "O ajuste do próprio llama.cpp (sem \u2011ngl, como o Ollama o roda)",
    "speed.value.fit": "-ngl {layers}{split}{parts}: {rate} por sequência",
    "speed.value.fit_parts": ", os especialistas (ou o MLP) de {count} camadas na RAM",
    "speed.value.fit_none": "nada cabe",
    "speed.figure.min_n_cpu_moe": "Menos camadas de especialistas na RAM que cabem",
    "speed.value.n_cpu_moe": "--n-cpu-moe {layers}: {rate} por sequência",
    "option.runtime.ollama": "Ollama (com seu próprio contexto e padrões)",
    "field.ollama_version.label": "Versão do Ollama",
    "field.ollama_version.help": (
        "Como `ollama -v` a mostra (ex.: 0.9.6); vazio: a última lida, 0.33. Os padrões mudaram: contexto de "
        "2.048 antes da 0.6.7, depois 4.096, pela VRAM desde a 0.15.5; até 4 sequências antes da 0.9.7; o "
        "ajuste do próprio llama-server desde a 0.30."
    ),
    "field.num_ctx.label": "Contexto do Ollama (num_ctx)",
    "field.num_ctx.help": (
        "Tokens que o Ollama reserva por sequência; vazio: o padrão pela memória da GPU (4.096, 32.768 a partir de 23 "
        "GiB, 262.144 a partir de 47 GiB)."
    ),
    "ollama.ctx_default": (
        "O Ollama reserva {ctx} tokens por sequência (o padrão para a memória desta GPU, v0.15.5 em diante){cut}"
    ),
    "ollama.ctx_default_fixed": "O Ollama reserva {ctx} tokens por sequência (o padrão {when}){cut}",
    "note.ollama_tags": (
        "Este é um arquivo de 16 bits. As tags da biblioteca do Ollama (ollama run NOME:TAMANHO) são Q4_K_M, a menos "
        "que a tag nomeie outro tipo (o MXFP4 do gpt-oss, uma tag :fp16 ou :q8_0): escolha q4_k_m para dimensionar o "
        "que o ollama run baixa."
    ),
    "ollama.before": "antes da v0.6.7; esta é a v{version}",
    "ollama.between": "da v0.6.7 à v0.15.4; esta é a v{version}",
    "ollama.parallel_kept": (
        "; sem OLLAMA_NUM_PARALLEL, esta versão roda {n} {n:sequência|sequências} com esse contexto, pois o modelo "
        "cabe "
        "então inteiro na GPU"
    ),
    "ollama.parallel_fell": (
        "; sem OLLAMA_NUM_PARALLEL, esta versão tenta {n} {n:sequência|sequências} e depois uma, pois com {n} o "
        "modelo não "
        "caberia inteiro na GPU"
    ),
    "ollama.fit": (
        "O Ollama deixa o llama-server ajustar o modelo à placa (num_gpu não definido; no log: \"offloaded "
        "{on_gpu}/{layers} layers to GPU\"){experts}; a tabela de placas conta o modelo inteiro em cada uma"
    ),
    "ollama.fit_experts": ", com os especialistas de algumas camadas na RAM do sistema",
    "ollama.ctx_given": "O Ollama reserva {ctx} tokens por sequência (num_ctx){cut}",
    "ollama.cut": ", qualquer que seja o pedido de {seq}: prompts mais longos são cortados",
    "speed.chart.moe.title": "Velocidade conforme a memória da GPU, quando --n-cpu-moe leva especialistas para a RAM",
    "speed.chart.moe.desc": (
        "De {fast} tokens/s com todos os especialistas na GPU ({most}) a {slow} tokens/s com os especialistas das "
        "{layers} camadas na RAM ({least}); a linha vertical é a memória da placa."
    ),
    "speed.chart.moe.x": "memória da GPU (GiB)",
    "speed.basis.reference": (
        "Os forwards sem gradientes (o da referência; o da política antiga; o lote KL do KTO; os modelos de valor "
        "e de recompensa do PPO) somam {flops} PFLOP "
        "por passo (2 × parâmetros por token)."
    ),
    "speed.basis.rollout": (
        "Antes dele, {engine} gera {sequences} respostas de {tokens} tokens: {seconds} s, {share} do passo."
    ),
    "speed.basis.rollout_shared": (
        "Antes dele, {engine} gera {sequences} respostas de {tokens} tokens {per_step} vezes por passo em média "
        "(uma geração atende passos por geração × atualizações por geração micropassos; PPO: seus blocos, por suas "
        "épocas): {seconds} s por passo, "
        "{share} dele."
    ),
    "speed.basis.sync": (
        "Manter {gpus} cópias de dados paralelos em sincronia leva {seconds} s de tráfego por passo num enlace de "
        "{link} GB/s, ao lado de {compute} s de computação: o passo leva o maior dos dois."
    ),
    "runtime.llamacpp_log": (
        "Como o llama_memory_breakdown_print do llama.cpp registra, em MiB: GPU self {self} = model {model} + "
        "context {context} + compute {compute}; Host {host} = {host_model} + {host_context} + {host_compute}."
    ),
    "speed.figure.cheapest_card": "Placa mais barata em que cabe (preços padrão)",
    "speed.value.cheapest": "{gpu}: US${usd} por milhão de tokens de saída",
    "speed.value.cheapest_training": "{gpu}: US${usd} por milhão de tokens de treino",
    # ---- pipelines de imagem e vídeo (family=diffusion; render/diffusion.py)
    "field.family.label": "O que rodar",
    "field.family.help": "Um modelo de linguagem (texto de entrada e de saída) ou um pipeline de difusão de imagem ou "
                         "vídeo.",
    "option.family.language": "Modelo de linguagem",
    "option.family.diffusion": "Imagem ou vídeo",
    "legend.diffusion": "Pipeline de imagem ou vídeo",
    "field.pipeline.label": "Pipeline de geração",
    "field.pipeline.help": "Suas partes (codificadores de texto, denoiser, VAE) contadas tensor a tensor a partir de "
                           "cada config.json.",
    "field.denoiser_precision.label": "Pesos do denoiser",
    "field.denoiser_precision.help": "fp8: conversão por camada; nf4: bitsandbytes; gguf-*: os arquivos GGUF de "
                                     "city96.",
    "field.text_precision.label": "Pesos dos codificadores de texto",
    "field.text_precision.help": "O formato dos codificadores de texto.",
    "field.vae_precision.label": "Pesos do VAE",
    "field.vae_precision.help": "O formato do VAE.",
    "field.placement.label": "Posicionamento",
    "field.placement.help": "O que fica na GPU enquanto o pipeline roda (o offload para a CPU do diffusers).",
    "option.placement.gpu": "Todas as partes na GPU",
    "option.placement.model": "Offload do modelo para a CPU (uma parte por vez)",
    "option.placement.sequential": "Offload sequencial para a CPU (um módulo por vez)",
    "field.text_encoders.label": "Codificadores de texto",
    "field.text_encoders.help": "Onde os codificadores de texto (T5-XXL, UMT5, Llama, Qwen, CLIP) ficam e rodam. Na "
                                "CPU, como o ComfyUI pode rodá-los, seus pesos nunca chegam à GPU e só os embeddings "
                                "do prompt são copiados para ela; a codificação fica mais lenta e usa a RAM do "
                                "sistema.",
    "option.text_encoders.gpu": "Como diz o posicionamento",
    "option.text_encoders.cpu": "Na CPU",
    "field.width.label": "Largura (pixels)",
    "field.width.help": "Um múltiplo de 16; vazio: a do pipeline.",
    "field.height.label": "Altura (pixels)",
    "field.height.help": "Um múltiplo de 16; vazio: a do pipeline.",
    "field.frames.label": "Quadros",
    "field.frames.help": ("Pipelines de vídeo: 4k + 1 (81, 49, ...), LTX-Video 8k + 1 (161, 121, ...); "
                          "vazio: os do pipeline. Imagens: 1."),
    "field.per_prompt.label": "Imagens ou vídeos por prompt",
    "field.per_prompt.help": "Gerados juntos em um lote.",
    "field.cfg.label": "Orientação sem classificador (CFG)",
    "field.cfg.help": "Uma segunda passada, do prompt negativo, a cada passo; modelos destilados para guidance rodam "
                      "sem ela.",
    "option.cfg.default": "A do pipeline",
    "option.cfg.on": "Ligada",
    "option.cfg.off": "Desligada",
    "field.vae_tiling.label": "Blocos do VAE (pixels)",
    "field.vae_tiling.help": "Decodifica bloco a bloco (o enable_tiling() do VAE), blocos com este lado em pixels, a "
                             "3/4 de bloco um do outro: de 128 a 4.096, múltiplo de 32; vazio: de uma vez.",
    "field.blocks_to_swap.label": "Blocos em troca (block swap)",
    "field.blocks_to_swap.help": "Os primeiros blocos transformer do denoiser mantidos na RAM do sistema, cada um "
                                 "levado à GPU na sua vez (o block swap do ComfyUI-WanVideoWrapper); 0: nenhum.",
    "diffusion.caption": "Os pesos de cada parte e a memória de cada etapa na GPU (GiB = 2³⁰ bytes)",
    "diffusion.weights": "Pesos: {role} ({cls})",
    "diffusion.weights.how": "{params} parâmetros em {precision}",
    "diffusion.weights.how_cpu": "{params} parâmetros em {precision}, na RAM do sistema (nunca na GPU)",
    "diffusion.stage.encode_cpu": "Codificação do texto na CPU ({role})",
    "diffusion.stage.encode": "Codificação do texto ({role})",
    "diffusion.stage.denoise": "Um passo de remoção de ruído",
    "diffusion.stage.denoise_high": "Um passo de remoção de ruído do especialista de ruído alto ({role})",
    "diffusion.stage.denoise_low": "Um passo de remoção de ruído do especialista de ruído baixo ({role})",
    "diffusion.stage.decode": "Decodificação pelo VAE",
    "diffusion.stage.decode_tiled": "Decodificação pelo VAE, em blocos de {tile} pixels",
    "diffusion.stage.how": "{weights} de pesos + {working} de memória de trabalho + {carried} carregados",
    "diffusion.peak": "{stage}: o pico",
    "diffusion.stage.how_partial": "{weights} de pesos + {carried} carregados; sua memória de trabalho ainda não é "
                                   "modelada",
    "diffusion.change.swap": "Troque {blocks} dos {total} blocos transformer do denoiser para a RAM do sistema "
                             "(blocos em troca: {blocks}).",
    "diffusion.frames": " × {frames} quadros",
    "diffusion.fix.placement": "posicionamento: offload do modelo para a CPU (uma parte na GPU por vez)",
    "diffusion.fix.text_encoders": "os codificadores de texto mantidos e executados na CPU",
    "diffusion.fix.vae_tiling": "uma decodificação do VAE em blocos ({value} px)",
    "diffusion.fix.precision": "o denoiser em {value}",
    "diffusion.fix.size": "imagens de {width} × {height} px",
    "diffusion.fix.frames": "{value} {value:quadro|quadros}",
    "diffusion.fix.together": "tudo isto: {fixes}",
    "diffusion.cfg.True": "CFG ligada",
    "diffusion.cfg.False": "CFG desligada",
    "diffusion.summary": "{pipeline}, {width} × {height}{frames}, {batch} por prompt, {cfg}; {placement}",
    "diffusion.incomplete": "No mínimo isto: a memória de trabalho de uma etapa ainda não é modelada, então o pico "
                            "pode ser maior.",
    "diffusion.tensors_only": "Os tensores do PyTorch, como medidos com o diffusers: o contexto CUDA (0,4 a 1 GiB "
                              "conforme a placa) e a reserva do alocador vêm por cima.",
    "diffusion.speed.note": (
        "Em {gpu}: {steps} passos × {step} = {denoise}; {total} por {output} {with_} ({validated})."
    ),
    "diffusion.speed.with.True.True": "com a codificação do texto e a decodificação do VAE",
    "diffusion.speed.with.True.False": "com a codificação do texto (a decodificação do VAE não contada)",
    "diffusion.speed.with.False.True": "com a decodificação do VAE (a codificação do texto na CPU não contada)",
    "diffusion.speed.with.False.False": "(a codificação do texto na CPU e a decodificação do VAE não contadas)",
    "diffusion.speed.image": "imagem",
    "diffusion.speed.clip": "vídeo",
    "diffusion.speed.validated.True": "validado contra execuções publicadas",
    "diffusion.speed.validated.False": "não validado",
    "diffusion.speed.unknown_tflops": "Sem tempo: a taxa de tensores de 16 bits da placa não está nos dados de GPUs.",
    "diffusion.speed.not_counted": "Sem tempo: os FLOPs de {name} ainda não são contados.",
    "diffusion.speed.training": "Sem tempo: o tempo de um passo de treino LoRA ainda não é modelado (só a memória).",
    "diffusion.cost.note": "Custo: US${usd} por {output} a US${hour} por GPU-hora.",
    "diffusion.speed.fp32": "Sem tempo: pesos fp32 rodam a outra taxa que não a de 16 bits à qual o tempo é ajustado.",
    "diffusion.speed.basis": "{steps} passos de {tflop} TFLOP cada (toda imagem e passada de guidance), a codificação "
                             "do texto e a decodificação do VAE, contados camada a camada, a {share} dos {tflops} "
                             "TFLOPS densos de 16 bits da placa: a fração que execuções publicadas atingem.",
    "diffusion.speed.basis_no_decode": "{steps} passos de {tflop} TFLOP cada (toda imagem e passada de guidance) e "
                                       "a codificação do texto, contados camada a camada, a {share} dos {tflops} "
                                       "TFLOPS densos de 16 bits da placa: a fração que execuções publicadas atingem.",
    "diffusion.speed.encode_on_cpu": "Os codificadores de texto na CPU: o tempo deles fica de fora.",
    "diffusion.speed.decode_not_counted": "A decodificação deste VAE ainda não é contada: o tempo dela fica de fora.",
    "diffusion.speed.offload": "Pesos movidos pelo PCIe a {pcie} GB/s pelo posicionamento: {seconds} s.",
    "diffusion.speed.dequantise": "Pesos GGUF e NF4 são desquantizados a cada camada: espere mais lento.",
    "diffusion.speed.error": "Contra {rows} execuções publicadas deste tipo: erro mediano de {median}, pior {worst}; "
                             "{held_out} de mediana quando cada fonte é prevista a partir das outras.",
    "diffusion.speed.unvalidated": "Não validado: {rows} execuções publicadas deste tipo de denoiser nesta classe de "
                                   "placa (docs/accuracy.md).",
    "field.train_lora.label": "Treino LoRA (rank)",
    "field.train_lora.help": "Um passo de treino de adaptadores LoRA deste rank num denoiser Flux, FLUX.2 ou Wan, "
                             "como o sd-scripts, o musubi-tuner e o ai-toolkit o executam; 0: uma geração.",
    "field.train_lora_targets.label": "Camadas adaptadas",
    "field.train_lora_targets.help": "Todas as Linear dos blocos transformer, ou todas menos a modulação AdaLN do "
                                     "Flux (como no musubi-tuner).",
    "option.train_lora_targets.all": "Todas as Linear dos blocos",
    "option.train_lora_targets.no-modulation": "Todas menos a modulação",
    "field.adapter_precision.label": "Adaptadores",
    "field.adapter_precision.help": "Os adaptadores, os seus gradientes e o estado do AdamW (fp32: --mixed_precision "
                                    "bf16).",
    "field.train_optimizer.label": "Otimizador",
    "field.train_optimizer.help": "adamw8bit: o AdamW de 8 bits do bitsandbytes.",
    "field.train_checkpointing.label": "Checkpointing de gradientes",
    "field.train_checkpointing.help": "O forward guarda só a entrada de cada bloco; o backward recalcula um bloco de "
                                      "cada vez.",
    "field.cache_latents.label": "Latentes e embeddings em cache",
    "field.cache_latents.help": "Codificados uma vez antes do treino: o VAE e os codificadores de texto ficam fora "
                                "da GPU.",
    "option.train_checkpointing.on": "Ligado",
    "option.train_checkpointing.off": "Desligado",
    "option.cache_latents.on": "Em cache",
    "option.cache_latents.off": "Codificados a cada passo",
    "diffusion.train.caption": "A memória do passo de treino na GPU no seu pico, no backward (GiB = 2³⁰ bytes)",
    "diffusion.train.weights": "Denoiser congelado",
    "diffusion.train.weights.how": "em {precision}, sem gradientes",
    "diffusion.train.encoders": "VAE e codificadores de texto",
    "diffusion.train.encoders.how": "na GPU para codificar cada lote (latentes e embeddings sem cache)",
    "diffusion.train.adapters": "Adaptadores LoRA",
    "diffusion.train.adapters.how": "{params} parâmetros em {adapters}",
    "diffusion.train.gradients": "Os seus gradientes",
    "diffusion.train.gradients.how": "em {adapters}, feitos à medida que o backward chega a cada bloco",
    "diffusion.train.optimizer": "Estado do otimizador",
    "diffusion.train.optimizer.how": "{optimizer}: dois momentos por parâmetro dos adaptadores",
    "diffusion.train.inputs": "Latentes e embeddings de texto",
    "diffusion.train.inputs.how": "os do lote, em bf16",
    "diffusion.train.activations": "Ativações guardadas",
    "diffusion.train.activations.how": "guardadas pelo forward para o backward (com checkpointing: a entrada de cada "
                                       "bloco, e um bloco recalculado)",
    "diffusion.train.transients": "Transitórios do backward",
    "diffusion.train.transients.how": "gradientes em trânsito na camada mais larga, e as cópias bf16 dos pesos de uma "
                                      "base fp8",
    "diffusion.train.summary": "{pipeline}: um passo de treino LoRA, rank {rank}, {width} × {height}{frames}, lote "
                               "{batch}, {checkpointing}",
    "diffusion.train.checkpointing.True": "com gradient checkpointing",
    "diffusion.train.checkpointing.False": "sem checkpointing",
    "diffusion.train.params": "{count} parâmetros treináveis",
    "diffusion.train.note": "O pico do passo, no seu backward; a menos de 5 % de passos medidos em configs pequenas "
                            "de Flux, FLUX.2 e Wan com diffusers e peft (docs/accuracy.md). A troca de blocos "
                            "durante o treino não é modelada.",
    "verdict.train_no": "Não cabe em {where}: precisa de {used}, há {usable} ({share}).",
    "diffusion.train.change.denoiser_precision": "Uma base fp8 (pesos do denoiser: fp8): {used}.",
    "diffusion.train.change.train_optimizer": "Otimizador AdamW8bit: {used}.",
    "diffusion.train.change.train_checkpointing": "Checkpointing de gradientes: {used}.",
    "diffusion.train.change.cache_latents": "Latentes e embeddings em cache: {used}.",
    "diffusion.train.change.adapter_precision": "Adaptadores bf16: {used}.",
    "diffusion.train.change.per_prompt": "Um lote de 1: {used}.",
    "target.mixed": "{gpus}",
    "verdict.mixed": "{gpus}, a mais cheia para o seu tamanho sendo a {device} ({gpu})",
    "reverse.heading_mixed": "Em {target} ({memories}), {layout}",
    "layout.split_free": "camadas {layers}: o llama.cpp as divide pela memória livre de cada GPU",
    "layout.split_given": "camadas {layers}, como o --tensor-split as dá",
    "rank.device": "{device} {gpu}: {layers} {layers:camada|camadas}; modelo {model}, contexto {context}, "
                   "computação {compute}, sobrecarga {overhead}: {total} de {memory} ({share})",
    "split.device_layers": "{count} das {layers} camadas que o -ngl conta (a camada de saída é uma)",
    "answer.gpus_mixed": "não contado para placas diferentes (a tabela de GPUs conta placas de um só tipo)",
    "field.tensor_split.label": "Camadas por GPU (--tensor-split)",
    "field.tensor_split.help": (
        "O -ts do llama.cpp: a proporção das camadas de cada GPU, CUDA0 primeiro (ex.: 3,1). Vazio: pela memória "
        "livre de cada GPU. Placas diferentes: liste-as no campo GPU (rtx-3090,rtx-4060-ti-16gb)."
    ),
    "option.runtime.tei": "text-embeddings-inference (TEI, da Hugging Face)",
    "field.max_batch_tokens.label": "Máximo de tokens por lote",
    "field.max_batch_tokens.help": "O --max-batch-tokens do TEI: os tokens do seu maior lote (padrão 16.384).",
    "field.max_batch_requests.label": "Máximo de pedidos por lote",
    "field.max_batch_requests.help": "O --max-batch-requests do TEI; vazio: sem limite.",
    "field.window_tokens.label": "Tokens por janela",
    "field.window_tokens.help": (
        "faster-whisper: os tokens que o decodificador escreve em cada janela de 30 segundos; vazio: o máximo "
        "possível, 224 (o pior caso)."
    ),
    "field.no_fallback.label": "Sem fallback de temperatura",
    "field.no_fallback.help": (
        "faster-whisper, uma janela de cada vez: temperature=0, só busca em feixe. Desligado: contam-se as best_of 5 "
        "amostras do fallback, cada uma com a sua atenção cruzada (o pior caso)."
    ),
    "tei.kv_cache": "o TEI não guarda cache KV",
    "tei.activations": (
        "O maior lote do TEI: {sequences} × {seq} tokens ({tokens} de --max-batch-tokens {budget}), {attention}, "
        "como seus modelos candle o alocam (lido do código-fonte, não medido: aproximado) = {bytes}"
    ),
    "tei.rotary_cache": (
        " + as tabelas de cosseno e seno que o GTE flash do TEI monta ao carregar, 2 × {rows} × {width} valores = "
        "{bytes}"
    ),
    "tei.flash": "flash attention, sem padding",
    "tei.padded": "com padding, com os scores de atenção por cabeça",
    "tei.overhead": "Contexto CUDA com cuBLAS, tomado como o do PyTorch nesta placa (aproximado para o TEI) = {bytes}",
    "note.tei": (
        "Os números do TEI foram lidos do seu código-fonte (1.9), não medidos: seu maior lote como a fila o forma, "
        "float16 por padrão; seu contexto CUDA é tomado como o do PyTorch."
    ),
    "note.tei_turing": (
        "A imagem do TEI para placas Turing (turing-1.x, a da T4) começa com a flash attention desligada "
        "(USE_FLASH_ATTENTION=False: problemas de precisão da flash attention v1) e executa o modelo com padding: "
        "escolha a atenção eager para contá-lo. A resposta mostrada é com USE_FLASH_ATTENTION=True."
    ),
    "speed.figure.embed": "Vazão de embedding",
    "speed.figure.requests": "Sequências processadas",
    "speed.value.requests_s": "{value} {value:sequência|sequências}/s",
    "speed.line.embedding": "Cerca de {tokens} tokens/s processados, {requests} {requests:sequência|sequências}/s.",
    "speed.speculative": (
        "Decodificação especulativa com {drafter}: {drafted} {drafted:token rascunhado|tokens rascunhados} por passo, "
        "cada um aceito com probabilidade {acceptance} ({source}), de modo que um passo rende em média {tokens} "
        "tokens ((1 − a^(k+1)) / (1 − a), Leviathan et al. 2023, todas as posições iguais). Um passo custa a "
        "verificação de {checked} tokens por sequência pelo modelo e os rascunhos ({draft} ms); o tempo por token "
        "acima é o de um passo dividido por esses {tokens}. {serving}"
    ),
    "speed.speculative.mtp": "as camadas MTP do modelo",
    "speed.speculative.draft": "o modelo de rascunho {draft}",
    "speed.speculative.given": "como informado",
    "speed.speculative.default_mtp": (
        "suposto: o relatório do DeepSeek-V3 tem o segundo token aceito em 85-90 % das vezes; informe a taxa do "
        "seu modelo como aceitação"
    ),
    "speed.speculative.default_draft": (
        "suposto: um valor intermediário das execuções publicadas do llama.cpp, que vão de 34 % a 80 %; informe a "
        "taxa do seu modelo como aceitação"
    ),
    "speed.speculative.draft_checked": (
        "Comparado à única execução publicada do llama.cpp com modelo de rascunho, este ganho saiu 40 % alto demais "
        "(2,39x contra 1,71x): o llama.cpp amostra na CPU cada token rascunhado e conferido, o que não é contado."
    ),
    "speed.speculative.assistant": (
        "o transformers rascunha até num_assistant_tokens ({drafted}) por passo e para antes onde a confiança do "
        "assistente cai abaixo de assistant_confidence_threshold (0,4): contados {drafted} a cada passo, o mais lento."
    ),
    "speed.speculative.single": "A aceitação depende do modelo, do seu rascunhador e do texto, não da placa.",
    "speed.speculative.serving": (
        "Serviço: a parte do tempo do vLLM que é decodificação é encurtada como este modelo de passo encurta um "
        "passo das sequências em execução (um lote limitado por computação ganha menos), ainda não comparado com "
        "uma execução de serviço publicada com especulação."
    ),
    "speed.embedding.checked": (
        "A velocidade de embedding é a passada do lote cronometrada como a de um prompt (seus FLOPs sobre a "
        "fração da taxa da placa que o motor alcança). Frente a {rows} execuções publicadas de embedding (TEI, "
        "infinity e PyTorch numa L4, numa MI210 e numa A100): {median} na mediana, {within} de {rows} dentro de 2×; "
        "uma execução que tokeniza na CPU dentro do tempo medido (o encode do sentence-transformers) é mais lenta."
    ),
    "option.runtime.faster-whisper": "faster-whisper (sobre o CTranslate2)",
    "faster_whisper.weights": (
        "CTranslate2 {compute}: matrizes e embedding de tokens no seu tipo de pesos (int8 com uma escala float32 por "
        "linha), convoluções, posições, normas e vieses no seu tipo de ponto flutuante = {bytes}"
    ),
    "faster_whisper.weights_padded": (
        "CTranslate2 {compute}: matrizes e embedding de tokens no seu tipo de pesos (int8 com uma escala float32 por "
        "linha), convoluções, posições, normas e vieses no seu tipo de ponto flutuante {stored}, e a camada de saída "
        "copiada para {rows} {rows:linha|linhas}, um múltiplo que os seus GEMMs preferem, {copy} = {bytes}"
    ),
    "faster_whisper.kv_cache": (
        "{layers} camadas do decodificador: K e V da atenção cruzada sobre {frames} quadros para {cross} "
        "{cross:linha|linhas}, "
        "autoatenção sobre {tokens} posições para {rows} {rows:linha|linhas} ({path}; {case}) = {bytes}"
    ),
    "faster_whisper.worst": "o pior caso: cada janela escreve o máximo de tokens, {written}, {fallback}",
    "faster_whisper.given": "cada janela escreve {written} tokens, como indicado, {fallback}",
    "faster_whisper.with_fallback": "e recorre à amostragem best_of {best_of}",
    "faster_whisper.no_fallback": "sem fallback de temperatura",
    "faster_whisper.batched": "o pipeline em lotes não tem fallback de temperatura",
    "faster_whisper.beams": "a busca em feixe com {beams} feixes partilha a atenção cruzada de uma janela",
    "faster_whisper.fallback": (
        "as best_of {best_of} amostras do fallback de temperatura, cada uma com a sua atenção cruzada, superam "
        "{beams} feixes"
    ),
    "faster_whisper.activations": (
        "o codificador sobre {batch} janelas {encode}, ou ao lado das caches a saída do codificador e os logits "
        "do passo {decode}; lido do código-fonte do CTranslate2, não medido: aproximado = {bytes}"
    ),
    "faster_whisper.overhead": (
        "Contexto CUDA com cuBLAS, tomado como o do PyTorch nesta placa (aproximado para o CTranslate2) = {bytes}"
    ),
    "note.faster_whisper": (
        "Os números do faster-whisper foram lidos do código-fonte do CTranslate2, não medidos. Salvo indicação "
        "(tokens por janela, sem fallback de temperatura) são o pior caso: cada janela escreve o máximo de tokens "
        "e, uma janela de cada vez, o fallback de temperatura amostra best_of 5; o seu contexto CUDA é tomado como o "
        "do PyTorch."
    ),
    "speed.speech.basis": (
        "Transcrição de {audio} s de áudio: {windows} {windows:janela|janelas} de 30 s em {groups} "
        "{groups:passada|passadas} de {rows} {rows:linha|linhas} do decodificador (janelas × feixes). Codificador "
        "{encode} s: {flops} TFLOP por janela, e o prompt do decodificador (com o K e o V da sua atenção cruzada), a "
        "{share} de "
        "{tflops} TFLOPS (multiplicações {kernel}). Decodificador {decode} s: {tokens} tokens por janela ({given}), "
        "{step} ms por passo que lê os pesos e os caches uma vez, {fixed} ms dele fixos. O áudio decodificado e seu "
        "espectrograma na CPU: {host} s."
    ),
    "speed.speech.given": "como informado",
    "speed.speech.typical": "cerca de 30 s de fala; as palavras faladas o determinam",
    "speed.speech.error": (
        "Taxas ajustadas a {rows} execuções publicadas (faster-whisper e whisper.cpp, Whisper large-v2 numa RTX 3070 "
        "Ti), a até {fit} de cada; execuções deixadas de fora (transformers, um faster-whisper antigo numa V100S) a "
        "até {held} (docs/accuracy.md). Uma janela que escreve mais tokens, ou recorre à amostragem, demora mais."
    ),
    "speed.figure.transcribe": "Tempo de transcrição",
    "speed.figure.rtf": "Fator de tempo real",
    "speed.value.rtf": "{value} ({speed}× o tempo real)",
    "speed.line.speech": "Transcreve {audio} de áudio em {time} ({speed}× o tempo real).",
    "speed.kernel.int8": "de int8",
    "speed.kernel.fp16-acc16": "com acumulação FP16",
}
