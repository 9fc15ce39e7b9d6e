import Foundation
import LastsetService

Daemon.unblockSignals()
exit(await Daemon.main(arguments: Array(CommandLine.arguments.dropFirst())))
