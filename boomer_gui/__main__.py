from boomer_gui.app import main

raise SystemExit(main())
