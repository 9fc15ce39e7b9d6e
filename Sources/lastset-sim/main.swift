// lastset-sim: serves a config's register map as a Modbus TCP or RTU slave (see Simulator.swift).
Simulator.main(Array(CommandLine.arguments.dropFirst()))
