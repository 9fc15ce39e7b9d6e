// The process entry point; everything else lives in LastsetCLI so that tests can import the module.
LastsetCLI.main()
