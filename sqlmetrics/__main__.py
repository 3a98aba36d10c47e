from sqlmetrics.cli import main

raise SystemExit(main())
