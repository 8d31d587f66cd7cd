"""A version 4 deletion plan as the code before version 5 saved it
(``DeletionPlan.to_json(indent=None)`` at 6e2c235, every field and kind of entry used): a plan
saved then must still load, keep its digest and JSON (tests/unit/deletion/test_plan_columns.py).
"""

from __future__ import annotations

PLAN_V4_JSON = (
    '{"version":4,"request_id":"del-golden-v4","requested_by":"dpo","reason":"Art. 17 req'
    'uest","subject":{"tenant":"acme","user":"u-17"},"roots":["i1","r1"],"missing_roots":'
    '[],"term_salt":"00112233445566778899aabbccddeeff","term_checks":["3cbd2e6cefaab30faf'
    '38f938d7cde0a1675ada3d7772ff8592f1a2894c08fa01","2481df1a10c3e78beb03c708000df86d100'
    '0f3e2da476a6a955048d7f95d2533"],"tenants":["acme"],"planned_at":"2026-12-05T09:30:00'
    'Z","entries":[{"id":"r1","node":"record","kind":"episodic","disposition":"DELETE","r'
    'eason":"in the subject\'s scope","via":"root","depth":0,"parents":[],"erased_parents"'
    ':[],"terms":[],"already_erased":false},{"id":"i1","node":"intention","kind":null,"di'
    'sposition":"DELETE","reason":"in the subject\'s scope; cancelled and erased","via":"r'
    'oot","depth":0,"parents":[],"erased_parents":[],"terms":[],"already_erased":false},{'
    '"id":"a","node":"record","kind":"semantic","disposition":"DELETE","reason":"every pa'
    'rent is being deleted (r1)","via":"lineage","depth":1,"parents":["r1"],"erased_paren'
    'ts":[],"terms":[],"already_erased":false},{"id":"b","node":"record","kind":"semantic'
    '","disposition":"DELETE","reason":"every parent is being deleted or already erased ('
    'gone, r1)","via":"lineage","depth":1,"parents":["gone","r1"],"erased_parents":["gone'
    '"],"terms":[],"already_erased":false},{"id":"t","node":"record","kind":"semantic","d'
    'isposition":"DELETE","reason":"already erased by an earlier request; stays a tombsto'
    'ne","via":"lineage","depth":1,"parents":["keep","r1"],"erased_parents":[],"terms":[]'
    ',"already_erased":true},{"id":"c","node":"record","kind":"semantic","disposition":"R'
    'EDACT","reason":"holds a redaction term, redacted instead of recomputed: derived fro'
    'm deleted a; keep survives","via":"lineage","depth":2,"parents":["a","keep"],"erased'
    '_parents":[],"terms":[0],"already_erased":false},{"id":"p","node":"record","kind":"p'
    'rocedural","disposition":"QUARANTINE","reason":"a procedure touched by deleted conte'
    'nt: derived from deleted a; its other parents are recomputed","via":"lineage","depth'
    '":2,"parents":["a","c"],"erased_parents":[],"terms":[],"already_erased":false},{"id"'
    ':"q","node":"record","kind":"semantic","disposition":"RECOMPUTE","reason":"its linea'
    'ge forms a cycle; recompute it by hand","via":"lineage","depth":3,"parents":["c","q2'
    '"],"erased_parents":[],"terms":[1],"already_erased":false},{"id":"proc","node":"reco'
    'rd","kind":"procedural","disposition":"QUARANTINE","reason":"a procedure citing dele'
    'ted evidence (a)","via":"citation","depth":0,"parents":[],"erased_parents":[],"terms'
    '":[],"already_erased":false},{"id":"m","node":"record","kind":"semantic","dispositio'
    'n":"REDACT","reason":"holds a redaction term","via":"mention","depth":0,"parents":[]'
    ',"erased_parents":[],"terms":[0,1],"already_erased":false},{"id":"mi","node":"intent'
    'ion","kind":null,"disposition":"REDACT","reason":"holds a redaction term","via":"men'
    'tion","depth":0,"parents":[],"erased_parents":[],"terms":[1],"already_erased":false}'
    '],"dangling_citations":[{"record_id":"s","cites":["a"]}],"retrievals":[{"retrieval_i'
    'd":"ret-1","selected_ids":["a"],"query_holds_terms":true}],"reach":{"clearance":"con'
    'fidential","scope":{"user":"u-17"}},"digest":"bc7a676f5475ce54d18fab7da14435cdad83b6'
    '4132da4426a2963dfc27f66838"}'
)
