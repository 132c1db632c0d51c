"""The review loop (DESIGN §14): people label what they reviewed (``labels``), the judge is measured against them
(``agreement``), labels travel as JSON lines and reviewed runs become a trial dataset (``export``). What a label
can be matched to — stored runs, a trial's samples, a sweep's cells — is ``items``."""
