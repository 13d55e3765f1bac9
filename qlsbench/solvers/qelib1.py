"""OpenQASM 2 that a strict reader accepts: the gates of the paper's ``qelib1.inc``, every other gate defined.

Qiskit's own OpenQASM 2 writer (``qiskit.qasm2.dumps``) takes ``qelib1.inc`` to be Qiskit's extended copy of it:
it leaves ``u``, ``p``, ``sx`` and a dozen others undefined, and a strict reader (one that knows the include file
as the language's paper gives it, Cross et al. 2017, arXiv:1707.03429: ``qiskit.qasm2.loads`` by default, and
other tools) stops at the first of them. It also names the second of two different gates that share a name after
the gate object's address in memory, so two exports of one circuit differ. :func:`dumps` writes instead:

- a gate of the paper's ``qelib1.inc`` (:data:`QELIB1`) as itself, and Qiskit's ``u``, ``p`` and ``cp`` as
  ``u3``, ``u1`` and ``cu1``: the same matrices under the include file's names;
- any other gate as a ``gate`` definition made from its Qiskit definition by the same rules, so a definition uses
  only the include file's gates and earlier definitions; gates of one name whose definitions differ are named
  ``name``, ``name_1``, ``name_2``... in the order the circuit first uses them;
- ``measure``, ``reset`` and ``barrier`` as themselves. Anything else (classical control, an instruction that is
  not a gate) is refused in one line.

OpenQASM 2 cannot state a global phase, so what a reader gets back equals the circuit up to one.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from qlsbench.errors import InputError

#: The gates of ``qelib1.inc`` as the OpenQASM 2 paper gives it: name -> (parameters, qubits).
QELIB1 = {
    "u3": (3, 1),
    "u2": (2, 1),
    "u1": (1, 1),
    "cx": (0, 2),
    "id": (0, 1),
    "x": (0, 1),
    "y": (0, 1),
    "z": (0, 1),
    "h": (0, 1),
    "s": (0, 1),
    "sdg": (0, 1),
    "t": (0, 1),
    "tdg": (0, 1),
    "rx": (1, 1),
    "ry": (1, 1),
    "rz": (1, 1),
    "cz": (0, 2),
    "cy": (0, 2),
    "ch": (0, 2),
    "ccx": (0, 3),
    "crz": (1, 2),
    "cu1": (1, 2),
    "cu3": (3, 2),
}
#: Qiskit's gates that are a qelib1.inc gate's matrix under another name: U(theta, phi, lambda) is u3's, P(lambda)
#: u1's, CP(lambda) cu1's.
RENAMED = {"u": "u3", "p": "u1", "cp": "cu1"}
#: Names a written gate or register may not take: the language's words, its two built-in gates, the include's gates.
RESERVED = frozenset(
    {
        "OPENQASM",
        "include",
        "qreg",
        "creg",
        "gate",
        "opaque",
        "measure",
        "reset",
        "barrier",
        "if",
        "U",
        "CX",
        "pi",
        "sin",
        "cos",
        "tan",
        "exp",
        "ln",
        "sqrt",
        *QELIB1,
    }
)


def dumps(circuit, comments: tuple[str, ...] = ()) -> str:
    """``circuit`` as OpenQASM 2 in :data:`QELIB1`'s gates and gates the text defines (module docstring), with
    ``comments`` as ``//`` lines after the include; the same circuit gives the same text.

    Raises
    ------
    InputError
        When the circuit has unbound parameters, classical control, or an instruction that is neither a gate
        nor ``measure``, ``reset`` or ``barrier``, or a gate with no definition to write.
    """
    if circuit.parameters:
        raise InputError(f"OpenQASM 2: the circuit has {len(circuit.parameters)} unbound parameters; bind them first")
    names: set[str] = set()
    qregs, qubit_label = _registers(circuit.qubits, circuit.qregs, "q", circuit, names)
    cregs, clbit_label = _registers(circuit.clbits, circuit.cregs, "c", circuit, names)
    writer = _Writer(names)
    body = [line for inst in circuit.data if (line := writer.statement(inst, qubit_label, clbit_label))]
    declarations = [f"qreg {name}[{size}];" for name, size in qregs] + [f"creg {name}[{size}];" for name, size in cregs]
    header = ["OPENQASM 2.0;", 'include "qelib1.inc";', *(f"// {line}" for line in comments)]
    return "\n".join(header + writer.definitions + declarations + body) + "\n"


def _registers(bits, registers, flat: str, circuit, names: set) -> tuple[list, dict]:
    """Declared registers ``(name, size)`` and each bit's label: the circuit's own registers when each bit is in
    exactly one of them, else one register ``flat`` over every bit in the circuit's order."""
    labels = {}
    if all(len(circuit.find_bit(bit).registers) == 1 for bit in bits):
        declared = []
        for register in registers:
            if register.size == 0:
                continue
            name = _unique(_identifier(register.name, "reg_"), names)
            names.add(name)
            declared.append((name, register.size))
            labels.update({bit: f"{name}[{i}]" for i, bit in enumerate(register)})
        return declared, labels
    name = _unique(flat, names)
    names.add(name)
    return [(name, len(bits))] if bits else [], {bit: f"{name}[{i}]" for i, bit in enumerate(bits)}


class _Writer:
    """Statements of one text and the ``gate`` definitions they need, in the order first needed.

    ``names`` holds every name taken (registers, gates); ``bodies`` each defined gate's qubit count and body, so a
    gate whose definition is already written takes that name again; ``known`` the name of a standard Qiskit gate
    by class, name, parameters and control state, which fix its definition (the device's ``ecr`` and ``sx``
    come thousands of times a circuit).
    """

    def __init__(self, names: set) -> None:
        from qiskit.circuit.library import get_standard_gate_name_mapping

        self.names = names
        self.bodies: dict[str, tuple[int, str]] = {}
        self.known: dict[tuple, str] = {}
        self.definitions: list[str] = []
        standard = get_standard_gate_name_mapping()
        self.standard = {gate.base_class for gate in standard.values()}
        self.qelib1 = {standard[name].base_class: name for name in QELIB1}
        self.qelib1.update({standard[qiskit].base_class: ours for qiskit, ours in RENAMED.items()})

    def statement(self, inst, qubit_label: dict, clbit_label: dict | None = None) -> str | None:
        """One instruction as a statement (``None`` for a barrier on no qubits); labels name each bit."""
        from qiskit.circuit import Gate

        op = inst.operation
        qubits = ",".join(qubit_label[q] for q in inst.qubits)
        if op.name == "barrier":
            return f"barrier {qubits};" if inst.qubits else None
        if op.name in ("measure", "reset") and clbit_label is not None:
            return f"measure {qubits} -> {clbit_label[inst.clbits[0]]};" if op.name == "measure" else f"reset {qubits};"
        if inst.is_control_flow() or not isinstance(op, Gate):
            where = "in a gate definition" if clbit_label is None else "in a circuit"
            raise InputError(f"OpenQASM 2 cannot write the instruction {op.name!r} {where}")
        name = self._qelib1_name(op)
        if name is not None:
            params = ",".join(_real(p) for p in op.params)
            return f"{name}({params}) {qubits};" if params else f"{name} {qubits};"
        return f"{self.define(op)} {qubits};"

    def _qelib1_name(self, op) -> str | None:
        """The include file's name for ``op`` when it is one of its gates (all controls on |1>), else ``None``."""
        name = self.qelib1.get(op.base_class)
        if name is None or len(op.params) != QELIB1[name][0]:
            return None
        controls = getattr(op, "num_ctrl_qubits", 0)
        return name if not controls or op.ctrl_state == (1 << controls) - 1 else None

    def define(self, op) -> str:
        """The name of a written ``gate`` definition of ``op`` (written now if no equal one is)."""
        key = self._key(op)
        if key in self.known:
            return self.known[key]
        definition = op.definition
        if definition is None:
            raise InputError(f"OpenQASM 2: gate {op.name!r} has no definition to write")
        labels = {bit: f"q{i}" for i, bit in enumerate(definition.qubits)}
        body = " ".join(line for inst in definition.data if (line := self.statement(inst, labels)))
        name, base, suffix = None, _identifier(op.name, "gate_"), 0
        while name is None:
            candidate = base if suffix == 0 else f"{base}_{suffix}"
            if self.bodies.get(candidate) == (op.num_qubits, body):
                name = candidate
            elif candidate not in self.names and candidate not in RESERVED:
                name = candidate
                self.names.add(name)
                self.bodies[name] = (op.num_qubits, body)
                self.definitions.append(f"gate {name} {','.join(labels.values())} {{ {body} }}")
            suffix += 1
        if key is not None:
            self.known[key] = name
        return name

    def _key(self, op):
        """What fixes a standard gate's definition (``None`` for others: their definitions are compared)."""
        if op.base_class not in self.standard:
            return None
        return op.base_class, op.name, tuple(float(p) for p in op.params), getattr(op, "ctrl_state", None)


def _identifier(name: str, prefix: str) -> str:
    """``name`` as an OpenQASM 2 identifier: other characters as ``_``, ``prefix`` unless it starts lowercase."""
    escaped = re.sub(r"\W", "_", name, flags=re.ASCII)
    return escaped if escaped[:1].islower() and escaped[:1].isascii() else prefix + escaped


def _unique(name: str, taken: set) -> str:
    """``name``, or ``name_1``, ``name_2``... : the first neither taken nor reserved."""
    suffix, candidate = 0, name
    while candidate in taken or candidate in RESERVED:
        suffix += 1
        candidate = f"{name}_{suffix}"
    return candidate


def _real(value) -> str:
    """``value`` as an OpenQASM 2 expression that reads back as the same double.

    A multiple of pi/8 when it is one exactly (``pi/2``, ``-3*pi/4``: a power-of-two denominator, so the reader's
    order of operations cannot change the last bit), else the shortest decimal that round-trips, with the decimal
    point the grammar's reals need (``1e-05`` is written ``1.0e-05``).
    """
    x = float(value)
    if not math.isfinite(x):
        raise InputError(f"OpenQASM 2: a gate parameter is {x}")
    eighths = round(abs(x) / (math.pi / 8))
    if 0 < eighths <= 64:
        ratio = Fraction(eighths, 8)
        if ratio.numerator * math.pi / ratio.denominator == abs(x):
            text = ("pi" if ratio.numerator == 1 else f"{ratio.numerator}*pi") + (
                f"/{ratio.denominator}" if ratio.denominator > 1 else ""
            )
            return "-" + text if x < 0 else text
    text = repr(x)
    return text.replace("e", ".0e") if "e" in text and "." not in text else text


__all__ = ["QELIB1", "RENAMED", "RESERVED", "dumps"]
