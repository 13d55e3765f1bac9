"""asv suite for the friction facet count: one warm step of the sliding 100-sphere pile at each s, with the
post-step velocity error against the exact Coulomb cone tracked beside its time (``docs/facets.md`` is the study)."""

import copy

import numpy as np

from qlsbench.bench.facet_study import FACETS, PILES, start_pile, step_options
from qlsbench.physics import WarmStart, step
from qlsbench.physics.spheres import exact_cone_nsgs


class FacetStep:
    """One step of the sliding pile (gravity turning, 97-100 % of loaded contacts sliding) at ``s`` facets."""

    params = list(FACETS)
    param_names = ["s"]
    timeout = 600

    def setup_cache(self):
        """The pile 20 steps into its slide at s = 8, then 5 steps at each s: every s times a step from a scene
        and warm start of its own (a warm start made at another s does not fit its unknowns)."""
        pile = next(p for p in PILES if p.name == "sliding")
        scene, warm = start_pile(100, 400), WarmStart()
        for k in range(20):  # into the sliding regime
            scene.gravity = pile.gravity(k)
            step(scene, step_options(8), warm=warm)
        own = {}
        for s in FACETS:
            mine, carried = scene.copy(), copy.deepcopy(warm)
            for k in range(20, 25):
                mine.gravity = pile.gravity(k)
                step(mine, step_options(s), warm=carried)
            mine.gravity = pile.gravity(25)
            own[s] = (mine, carried)
        return own

    def setup(self, cache, s):
        self.scene, self.warm = cache[s]

    def time_step(self, cache, s):
        step(self.scene.copy(), step_options(s), warm=copy.deepcopy(self.warm))

    def track_error_vs_exact_cone(self, cache, s):
        seen = []
        scene = self.scene.copy()
        step(scene, step_options(s), warm=copy.deepcopy(self.warm), problems=lambda i, p: seen.append(p))
        exact = exact_cone_nsgs(seen[0], tol=1e-10)
        change = np.linalg.norm(exact.velocities - seen[0].v_known.reshape(-1, 3))
        return float(np.linalg.norm(scene.velocities - exact.velocities) / change)

    track_error_vs_exact_cone.unit = "share of the step's velocity change"
