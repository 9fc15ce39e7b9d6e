import Foundation
import LastsetService

exit(await Daemon.main(arguments: Array(CommandLine.arguments.dropFirst())))
