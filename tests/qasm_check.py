"""Exported circuits read back: OpenQASM 2 as a strict reader reads it, without Qiskit (a second reader beside
``qiskit.qasm2.loads``), and a device-level circuit cut down to its region to be simulated.

The OpenQASM 2 check knows only what the language gives a file before the file defines anything: the built-ins
``U`` and ``CX`` and ``qelib1.inc`` as the language's paper prints it (Cross et al. 2017, arXiv:1707.03429). It
checks names, arities, declarations and the shape of the parameters; it computes no matrix (Qiskit's reader
does that).
"""

from __future__ import annotations

import re

#: The gates a strict reader knows before a file defines any, each "name parameters qubits".
STRICT_GATES = {
    name: (int(params), int(qubits))
    for name, params, qubits in (
        entry.split()
        for entry in (
            "U 3 1, CX 0 2, u3 3 1, u2 2 1, u1 1 1, cx 0 2, id 0 1, x 0 1, y 0 1, z 0 1, h 0 1, s 0 1, sdg 0 1, t 0 1, "
            "tdg 0 1, rx 1 1, ry 1 1, rz 1 1, cz 0 2, cy 0 2, ch 0 2, ccx 0 3, crz 1 2, cu1 1 2, cu3 3 2"
        ).split(", ")
    )
}
_DEFINITION = re.compile(r"gate\s+([a-z]\w*)\s+([\w,\s]+?)\s*\{([^}]*)\}")
_CALL = re.compile(r"([a-zA-Z]\w*)(?:\(([^()]*)\))?\s+(.+)")
# The parameters a writer of numbers produces: an optionally signed real or integer, or a multiple of pi.
_PARAMETER = re.compile(r"-?(?:(?:\d+\*)?pi(?:/\d+)?|(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+)")
_BIT = re.compile(r"([a-z]\w*)\[(\d+)\]")


def two_qubit_pairs(text: str) -> list[tuple[int, int]]:
    """Check ``text`` and return each two-qubit gate of its body as the pair of indices it names.

    Every gate used is a strict reader's (:data:`STRICT_GATES`) or defined earlier in the file from those, with
    as many parameters and qubits as its definition; every bit is declared and in range; a definition uses only
    its own qubit arguments. Raises AssertionError naming the statement that fails.
    """
    code = re.sub(r"//[^\n]*", "", text)
    assert code.lstrip().startswith("OPENQASM 2.0;") and 'include "qelib1.inc";' in code
    known = dict(STRICT_GATES)
    for name, formal, body in _DEFINITION.findall(code):
        assert name not in known, f"gate {name} is defined twice, or over a qelib1.inc gate"
        formal = [argument.strip() for argument in formal.split(",")]
        for statement in _statements(body):
            _call(statement, known, lambda argument, formal=formal: argument in formal)
        known[name] = (0, len(formal))
    registers = {"qreg": {}, "creg": {}}
    pairs = []
    for statement in _statements(_DEFINITION.sub("", code)):
        declared = re.fullmatch(r"(qreg|creg)\s+([a-z]\w*)\[(\d+)\]", statement)
        if statement.startswith(("OPENQASM", "include")):
            continue
        if declared:
            registers[declared[1]][declared[2]] = int(declared[3])
        elif statement.startswith("measure "):
            qubit, clbit = (part.strip() for part in statement.removeprefix("measure ").split("->"))
            assert _declared(qubit, registers["qreg"]) and _declared(clbit, registers["creg"]), statement
        elif statement.startswith(("barrier ", "reset ")):
            arguments = statement.split(None, 1)[1].split(",")
            assert all(_declared(a.strip(), registers["qreg"]) for a in arguments), statement
        else:
            arguments = _call(statement, known, lambda argument: _declared(argument, registers["qreg"]))
            if len(arguments) == 2:
                pairs.append(tuple(int(_BIT.fullmatch(a)[2]) for a in arguments))
    assert len(registers["qreg"]) == 1 or not pairs, "pairs of indices need one quantum register"
    return pairs


def _statements(code: str) -> list[str]:
    return [statement.strip() for statement in code.split(";") if statement.strip()]


def _declared(bit: str, registers: dict) -> bool:
    reference = _BIT.fullmatch(bit)
    return bool(reference) and int(reference[2]) < registers.get(reference[1], 0)


def _call(statement: str, known: dict, is_qubit) -> list[str]:
    """The qubit arguments of a gate call, after checking its gate, arity, parameters and arguments."""
    call = _CALL.fullmatch(statement)
    assert call and call[1] in known, f"not a gate a strict reader knows: {statement}"
    parameters = [p.strip() for p in call[2].split(",")] if call[2] else []
    arguments = [a.strip() for a in call[3].split(",")]
    assert (len(parameters), len(arguments)) == known[call[1]], f"wrong number of parameters or qubits: {statement}"
    assert all(_PARAMETER.fullmatch(p) for p in parameters), f"parameter not a number: {statement}"
    assert all(map(is_qubit, arguments)), f"qubit not declared: {statement}"
    return arguments


def on_region(circuit, region: list[int]):
    """A circuit in a chip's numbering on ``region``'s qubits alone, renumbered 0..k-1 (to simulate it)."""
    from qiskit import QuantumCircuit

    small = QuantumCircuit(len(region), circuit.num_clbits)
    where = {p: i for i, p in enumerate(region)}
    for inst in circuit.data:
        small.append(
            inst.operation,
            [where[circuit.find_bit(q).index] for q in inst.qubits],
            [circuit.find_bit(c).index for c in inst.clbits],
        )
    return small


def unitary(circuit):
    """The unitary of ``circuit`` without its final measurements."""
    from qiskit.quantum_info import Operator

    return Operator(circuit.remove_final_measurements(inplace=False))


def same_state(circuit, other) -> bool:
    """Whether the two circuits, without their final measurements, prepare the same state from |0...0> (up to a
    global phase, which OpenQASM 2 cannot state)."""
    from qiskit.quantum_info import Statevector

    states = [Statevector(c.remove_final_measurements(inplace=False)) for c in (circuit, other)]
    return abs(states[0].inner(states[1])) > 1 - 1e-9
