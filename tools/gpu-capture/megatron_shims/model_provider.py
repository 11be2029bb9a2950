# paratune's stand-in for Megatron-LM's top-level model_provider.py (absent from
# the vendored snapshot): hands the parsed arguments to the builder.
from megatron.training import get_args


def model_provider(model_builder, pre_process=True, post_process=True, vp_stage=None,
                   config=None, pg_collection=None):
    return model_builder(get_args(), pre_process, post_process, vp_stage,
                         config=config, pg_collection=pg_collection)
