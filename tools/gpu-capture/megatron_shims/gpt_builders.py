# paratune's stand-in for Megatron-LM's top-level gpt_builders.py, which the
# vendored snapshot (d98e8a64) lacks. pretrain_gpt.py imports it; at that commit
# the model is built from the config container, so this path is a fallback that
# builds the same local-spec GPT model from the parsed arguments.
from megatron.core.models.gpt import GPTModel
from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_local_spec
from megatron.training.arguments import core_transformer_config_from_args


def gpt_builder(args, pre_process, post_process, vp_stage=None, config=None, pg_collection=None):
    if config is None:
        config = core_transformer_config_from_args(args)
    spec = get_gpt_layer_local_spec(
        args.num_experts,
        args.moe_grouped_gemm,
        args.qk_layernorm,
        args.multi_latent_attention,
        normalization=args.normalization,
    )
    return GPTModel(
        config=config,
        transformer_layer_spec=spec,
        vocab_size=args.padded_vocab_size,
        max_sequence_length=args.max_position_embeddings,
        pre_process=pre_process,
        post_process=post_process,
        parallel_output=True,
        share_embeddings_and_output_weights=not args.untie_embeddings_and_output_weights,
        position_embedding_type=args.position_embedding_type,
        rotary_percent=args.rotary_percent,
        rotary_base=args.rotary_base,
        rope_scaling=args.use_rope_scaling,
        vp_stage=vp_stage,
        pg_collection=pg_collection,
    )
